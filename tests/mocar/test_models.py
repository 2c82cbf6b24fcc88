"""MoCAR, SMART-lite and QCNet-lite: invariance, rollout shape, matched sizes, learning, exact resume."""

import math
from dataclasses import replace

import numpy as np
import pytest
import torch

from proceedings.mocar.backbone import BackboneConfig
from proceedings.mocar.batch import make_batch
from proceedings.mocar.experiment import CONFIGS, Splits, build_arms, param_count
from proceedings.mocar.forecast import winner_take_all
from proceedings.mocar.model import MoCAR, MoCARConfig
from proceedings.mocar.smart_lite import Vocabulary
from proceedings.mocar.training import TrainConfig, train

SMALL = MoCARConfig(BackboneConfig(d=32, layers=2, heads=2, fourier=3), code_dim=8, tokenizer_hidden=32, modes=3)


def test_an_untrained_mocar_rollout_is_se2_invariant_within_1e_4_m(scenes):
    torch.manual_seed(0)
    model = MoCAR(SMALL).double().eval()
    batch = make_batch(scenes, np.arange(4))
    batch = type(batch)(**{k: (v.double() if torch.is_tensor(v) and v.is_floating_point() else v)
                           for k, v in batch.__dict__.items()})
    angle, shift = 2.1, (350.0, -1200.0)
    a = model.predict(batch).points
    b = model.predict(batch.transformed(angle, shift)).points
    rot = torch.tensor([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]], dtype=b.dtype)
    back = (b - torch.tensor(shift, dtype=b.dtype)) @ rot
    assert (a - back).norm(dim=-1).max() < 1e-4


def test_the_rollout_gives_60_finite_steps_for_every_mode_and_probabilities_that_sum_to_one(scenes):
    torch.manual_seed(0)
    forecast = MoCAR(SMALL).eval().predict(make_batch(scenes, np.arange(5)))
    assert forecast.points.shape == (5, 3, 60, 2) and torch.isfinite(forecast.points).all()
    assert torch.allclose(forecast.probabilities.sum(-1), torch.ones(5))


def test_the_rollout_keeps_predicted_codes_unless_the_retokenising_ablation_is_on(scenes):
    torch.manual_seed(0)
    model = MoCAR(SMALL).eval()
    clone = MoCAR(replace(SMALL, retokenize=True)).eval()
    clone.load_state_dict(model.state_dict())
    batch = make_batch(scenes, np.arange(3))
    kept, again = model.predict(batch).points, clone.predict(batch).points
    assert torch.allclose(kept[:, :, :5], again[:, :, :5])  # the first segment is decoded from the same code
    assert not torch.allclose(kept, again)  # later ones differ: re-encoding is not the identity


def test_the_closed_loop_loss_is_the_winner_take_all_loss_of_the_inference_rollout(scenes):
    torch.manual_seed(0)
    model = MoCAR(replace(SMALL, closed_loop=0.5)).eval()
    open_loop = MoCAR(SMALL).eval()
    open_loop.load_state_dict(model.state_dict())
    batch = make_batch(scenes, np.arange(4))
    with torch.no_grad():
        total, logs = model.loss(batch, torch.Generator().manual_seed(1))
        teacher_forced, _ = open_loop.loss(batch, torch.Generator().manual_seed(1))
        forecast = model.predict(batch)
        expected, _ = winner_take_all(forecast.points, torch.log(forecast.probabilities), batch.future_xy())
    assert "closed_loop" not in open_loop.loss(batch)[1]
    assert math.isclose(logs["closed_loop"], float(expected), rel_tol=1e-5)
    assert torch.allclose(total - teacher_forced, 0.5 * expected, rtol=1e-4)


def test_the_closed_loop_term_switches_on_at_its_share_of_the_training_steps(scenes):
    torch.manual_seed(0)
    model = MoCAR(replace(SMALL, closed_loop=1.0, closed_loop_start=0.5))
    batch = make_batch(scenes, np.arange(2))
    model.at_step(4, 10)
    assert "closed_loop" not in model.loss(batch)[1]
    model.at_step(5, 10)
    assert "closed_loop" in model.loss(batch)[1]


def test_the_learned_arms_have_parameters_within_10_percent_of_mocars(scenes):
    cfg = CONFIGS["tiny"]
    arms = build_arms(cfg, Splits(scenes, scenes, scenes, scenes), 0)
    target = param_count(arms["mocar"])
    for name, model in arms.items():
        assert abs(param_count(model) / target - 1) <= 0.10, name
    assert arms["smart_lite"].backbone.cfg.d == arms["qcnet_lite"].backbone.cfg.d == arms["mocar"].backbone.cfg.d


def test_k_disk_tokens_tokenise_their_own_segments_as_themselves(scenes):
    b = make_batch(scenes, np.arange(8))
    points, _, transitions = b.segments()
    vocab = Vocabulary.k_disk(points.reshape(-1, 5, 2), transitions.reshape(-1, 3), 32)
    assert len(vocab) == 32
    assert (vocab.nearest(vocab.points, vocab.transitions[:, 2]) == torch.arange(32)).all()
    tokens, frames = vocab.tokenize(b.xy, b.heading, b.times)
    assert tokens.shape == (8, b.history + b.future) and frames.shape == (8, b.history + b.future + 1, 3)


@pytest.mark.slow  # three short training runs (~8 CPU-s); the resume test below trains MoCAR in the fast suite
@pytest.mark.parametrize("arm", ["mocar", "smart_lite", "qcnet_lite"])
def test_each_arm_lowers_its_training_loss(scenes, arm):
    cfg = replace(CONFIGS["tiny"], mocar=SMALL)
    model = build_arms(cfg, Splits(scenes, scenes, scenes, scenes), 0)[arm]
    log = train(model, scenes, TrainConfig(steps=20, batch=4, lr=3e-3, warmup=3))
    assert np.mean(log.losses[-5:]) < np.mean(log.losses[:5])


def test_a_killed_run_resumes_with_the_same_step_counter_and_losses(scenes, tmp_path):
    cfg = TrainConfig(steps=6, batch=4, checkpoint_every=3)
    torch.manual_seed(0)
    straight = train(MoCAR(SMALL), scenes, cfg)
    torch.manual_seed(0)
    train(MoCAR(SMALL), scenes, cfg, tmp_path / "run.pt", until=3)  # "killed" after its checkpoint at step 3
    state = torch.load(tmp_path / "run.pt", weights_only=False)
    assert state["log"]["steps"] == 3
    torch.manual_seed(1)  # a fresh process: other initial weights, all restored from the checkpoint
    resumed = train(MoCAR(SMALL), scenes, cfg, tmp_path / "run.pt")
    assert resumed.steps == 6
    assert np.allclose(resumed.losses, straight.losses, rtol=1e-5)


def test_incremental_decoding_with_the_cache_equals_recomputing_the_whole_sequence(scenes):
    from proceedings.mocar.backbone import Backbone

    torch.manual_seed(0)
    backbone = Backbone(SMALL.backbone).eval()
    batch = make_batch(scenes, np.arange(3))
    tokens, frames = torch.randn(3, 2, 8, 32), batch.frames()[:, None, 1:9].expand(-1, 2, -1, -1)
    with torch.no_grad():
        full, _ = backbone(tokens, frames, batch)
        h, past = backbone(tokens[:, :, :5], frames[:, :, :5], batch)
        steps = [h]
        for i in range(5, 8):
            h, past = backbone(tokens[:, :, i:i + 1], frames[:, :, i:i + 1], batch, first=i, past=past)
            steps.append(h)
    assert torch.allclose(full, torch.cat(steps, dim=2), atol=1e-5)



def test_an_ablation_worse_on_every_scene_costs_minfde6_with_an_interval_above_0_and_reuses_the_run(scenes):
    from types import SimpleNamespace

    from proceedings.mocar.ablation import paired_rows
    from proceedings.mocar.experiment import run_folder

    cfg = replace(CONFIGS["tiny"], bootstrap=200)
    splits = Splits(scenes, scenes, scenes, scenes)
    row = {"min_ade6": 1.0, "min_fde6": 2.0, "min_ade1": 1.5, "min_fde1": 3.0, "mr2": 0.2, "brier_min_fde6": 2.5,
           "off_road": 0.1}
    fde = np.random.default_rng(0).uniform(1, 4, 50)
    tables = {arm: {split: (row, SimpleNamespace(min_fde6=fde + shift)) for split in ("a_train", "a_test", "a_turn", "b_av1")}
              for arm, shift in (("mocar", 0.0), ("mocar_beta0", 0.5))}
    torch.manual_seed(0)
    models = {"mocar": MoCAR(SMALL), "mocar_beta0": MoCAR(replace(SMALL, beta=0.0))}
    out = paired_rows(cfg, models, tables, splits, 0)
    assert list(out) == ["mocar_beta0"]
    assert out["mocar_beta0"]["fde6_cost_ci"] == pytest.approx([0.5, 0.5])
    assert out["mocar_beta0"]["tokenizer_ade"] > 0
    with_ablation = replace(CONFIGS["tiny"], ablations=("beta0",))  # an ablation adds an arm to the run, retrains none
    assert run_folder(with_ablation) == run_folder(CONFIGS["tiny"])


def test_ablations_name_unknown_switches_and_need_a_staged_run_in_one_line():
    from proceedings.core.errors import ProceedingsError
    from proceedings.mocar.ablation import run_ablations

    with pytest.raises(ProceedingsError, match="unknown ablation.*beta1"):
        run_ablations("small", 0, ("beta1",))
    with pytest.raises(ProceedingsError, match="no run folder"):
        run_ablations("tiny", 0, ("beta0",))
