"""The compositional DiT: arms differ only in the cross block, training resumes exactly, checkpoints are checked."""

import pytest
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.moca.data.procedural import generate
from proceedings.moca.flow import sample
from proceedings.moca.model import CompositionalDiT, DiTConfig
from proceedings.moca.training import TrainConfig, to_tensors, train

SMALL = DiTConfig(points=8, dim=16, heads=2, depth=1, k=1, sigma=4, mlp_ratio=2)


@pytest.fixture(scope="module")
def data():
    return to_tensors(generate("chair", 16, (6, 7), points_per_component=8, seed=0), ["chair"])


def test_resuming_at_step_20_equals_an_uninterrupted_40_step_run(tmp_path, data):
    cfg = TrainConfig(steps=40, batch=4, lr=1e-3, warmup=5, seed=3)
    whole, _ = train(SMALL, data, cfg)
    ckpt = tmp_path / "run.pt"
    train(SMALL, data, cfg, checkpoint=ckpt, stop_at=20)
    resumed, record = train(SMALL, data, cfg, checkpoint=ckpt)
    assert len(record.losses) == 40
    for (name, a), b in zip(whole.state_dict().items(), resumed.state_dict().values()):
        assert torch.equal(a, b), name


def test_the_arms_differ_only_in_the_cross_block():
    models = {arm: CompositionalDiT(DiTConfig(**{**SMALL.__dict__, "attention": arm})) for arm in ("full", "moca", "local")}
    names = {arm: {k for k in m.state_dict() if "route_" not in k} for arm, m in models.items()}
    assert names["full"] == names["moca"] == names["local"]
    routers = [k for k in models["moca"].state_dict() if "route_" in k]
    assert routers and all(k.startswith("blocks.1.") for k in routers)  # the cross block only


def test_a_nan_loss_skips_the_step_and_is_counted(data):
    broken = to_tensors(generate("chair", 4, (6, 6), points_per_component=8), ["chair"])
    broken.points[:] = float("nan")
    model, record = train(SMALL, broken, TrainConfig(steps=3, batch=2, warmup=1))
    assert record.skipped_nan == 3 and not record.losses
    assert all(torch.isfinite(p).all() for p in model.parameters())


def test_save_and_from_pretrained_round_trip_and_a_mismatched_checkpoint_is_refused(tmp_path):
    model = CompositionalDiT(SMALL)
    model.save_pretrained(tmp_path / "m")
    again = CompositionalDiT.from_pretrained(tmp_path / "m")
    a, b = sample(model, 0, 5, steps=2, seed=1), sample(again, 0, 5, steps=2, seed=1)
    assert torch.equal(a, b) and a.shape == (1, 5, 8, 3)
    other = CompositionalDiT(DiTConfig(**{**SMALL.__dict__, "dim": 32}))
    torch.save(other.state_dict(), tmp_path / "x.pt")
    from proceedings.moca.model import load_weights

    with pytest.raises(ProceedingsError, match="does not match this model configuration"):
        load_weights(model, torch.load(tmp_path / "x.pt"), "x.pt")


def test_a_resumed_run_with_another_configuration_is_refused(tmp_path, data):
    ckpt = tmp_path / "run.pt"
    train(SMALL, data, TrainConfig(steps=2, batch=2, warmup=1), checkpoint=ckpt)
    with pytest.raises(ProceedingsError, match="another configuration"):
        train(DiTConfig(**{**SMALL.__dict__, "dim": 32}), data, TrainConfig(steps=4, batch=2, warmup=1), checkpoint=ckpt)


def test_component_order_does_not_matter_to_the_denoiser():
    torch.manual_seed(0)
    model = CompositionalDiT(SMALL)
    for p in model.parameters():  # leave adaLN-Zero's identity start so the output depends on the input
        torch.nn.init.normal_(p, std=0.2)
    x, ids = torch.randn(1, 5, 8, 3), torch.tensor([[3, 9, 1, 7, 0]])
    perm = torch.tensor([4, 2, 0, 1, 3])
    t, label = torch.tensor([0.5]), torch.tensor([0])
    out = model(x, t, label, ids)
    assert torch.allclose(model(x[:, perm], t, label, ids[:, perm]), out[:, perm], atol=1e-5)
