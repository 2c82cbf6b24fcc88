"""Pseudo-pair training: exact resume, skipped non-finite steps, dropped samples, bad depth shapes."""

import numpy as np
import pytest
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.ovie.camera import intrinsics
from proceedings.ovie.depth import OracleDepth
from proceedings.ovie.geometry import PoseSampler
from proceedings.ovie.networks import NovelViewNet
from proceedings.ovie.pairs import PseudoPairs
from proceedings.ovie.train import TrainConfig, Trainer
from proceedings.ovie.worlds import RenderSpec, render_set

SIZE = 16
CFG = TrainConfig(steps=40, batch=2, lr=1e-3, warmup=2, gan_weight=0.1, gan_start=0.3)


@pytest.fixture(scope="module")
def singles():
    views = render_set(RenderSpec("C", 8, SIZE, 3), cache=False)
    depth, valid = OracleDepth().estimate(views)
    return views, depth, valid


def _trainer(singles, checkpoint=None):
    views, depth, valid = singles
    data = PseudoPairs(views["rgb"], depth, valid, intrinsics(SIZE), PoseSampler())
    torch.manual_seed(0)
    return Trainer(CFG, NovelViewNet(SIZE, intrinsics(SIZE)), data, checkpoint=checkpoint)


def test_resume_at_step_20_equals_an_uninterrupted_40_step_run_with_the_gan_on(singles, tmp_path):
    whole = _trainer(singles)
    whole.run()
    first = _trainer(singles, tmp_path / "ckpt.pt")
    first.run(until=20)
    resumed = _trainer(singles, tmp_path / "ckpt.pt")
    assert resumed.step == 20
    resumed.run()
    for a, b in zip(whole.ema.state_dict().values(), resumed.ema.state_dict().values()):
        assert torch.equal(a, b)
    for a, b in zip(whole.disc.state_dict().values(), resumed.disc.state_dict().values()):
        assert torch.equal(a, b)
    assert whole.log.losses == resumed.log.losses


@pytest.mark.filterwarnings("ignore:Detected call of")  # the skipped step never calls optimizer.step()
def test_a_non_finite_step_is_skipped_and_counted(singles):
    trainer = _trainer(singles)
    before = [p.clone() for p in trainer.net.parameters()]
    with torch.no_grad():
        trainer.net.body.head.bias.fill_(float("nan"))
    trainer.train_step()
    assert trainer.log.skipped_nonfinite == 1 and trainer.log.losses == []
    assert all(torch.equal(a, b) or a.isnan().any() for a, b in zip(trainer.net.parameters(), before))


def test_samples_with_under_5_percent_valid_depth_are_dropped_and_a_wrong_depth_shape_fails(singles):
    views, depth, valid = singles
    valid = valid.clone()
    valid[0] = False
    data = PseudoPairs(views["rgb"], depth, valid, intrinsics(SIZE), PoseSampler())
    assert data.dropped == 1 and len(data) == 7
    with pytest.raises(ProceedingsError, match="does not match"):
        PseudoPairs(views["rgb"], depth[:, :8], valid[:, :8], intrinsics(SIZE), PoseSampler())


def test_pseudo_targets_are_masked_where_the_splat_saw_nothing(singles):
    views, depth, valid = singles
    data = PseudoPairs(views["rgb"], depth, valid, intrinsics(SIZE), PoseSampler())
    batch = data.batch(np.random.default_rng(0), 8)
    assert batch.mask.any() and not batch.mask.all()
    assert float(batch.target.permute(0, 2, 3, 1)[~batch.mask].abs().max()) == 0.0


def test_the_accelerate_path_on_one_cpu_process_trains_exactly_like_the_plain_loop(singles):
    from dataclasses import replace

    views, depth, valid = singles
    runs = []
    for accelerate in (False, True):
        data = PseudoPairs(views["rgb"], depth, valid, intrinsics(SIZE), PoseSampler())
        torch.manual_seed(0)
        trainer = Trainer(replace(CFG, steps=4, gan_start=0.5, accelerate=accelerate), NovelViewNet(SIZE, intrinsics(SIZE)), data)
        trainer.run()
        runs.append(trainer)
    assert runs[1].accelerator is not None and runs[0].log.losses == runs[1].log.losses
    assert all(torch.equal(a, b) for a, b in zip(runs[0].ema.state_dict().values(), runs[1].ema.state_dict().values()))


def test_an_untrained_network_copies_the_source_for_any_pose(singles):
    views, depth, valid = singles
    data = PseudoPairs(views["rgb"], depth, valid, intrinsics(SIZE), PoseSampler())
    batch = data.batch(np.random.default_rng(0), 4)
    for arch in ("unet", "vit"):
        out = NovelViewNet(SIZE, intrinsics(SIZE), arch)(batch.source, batch.T)
        clamped = batch.source.clamp(1e-3, 1 - 1e-3)
        assert torch.allclose(out, clamped, atol=1e-5)


def test_sigterm_during_training_saves_the_finished_steps_and_a_rerun_resumes(singles, tmp_path):
    import os
    import signal

    trainer = _trainer(singles, tmp_path / "ckpt.pt")
    batch = trainer.data.batch

    def batch_then_terminate(rng, size):
        if trainer.step == 3:
            os.kill(os.getpid(), signal.SIGTERM)
        return batch(rng, size)

    trainer.data.batch = batch_then_terminate
    with pytest.raises(ProceedingsError, match="SIGTERM at step 4/40"):
        trainer.run()
    assert _trainer(singles, tmp_path / "ckpt.pt").step == 4
