"""The small comparison runs in pieces: a wall-time budget stops training (checkpointed), `stage` does one piece at
a time, and `reproduce` gathers the stored pieces without training again."""

import pytest

from proceedings.moca import experiment
from proceedings.moca.data.procedural import generate
from proceedings.moca.experiment import ExperimentConfig, reproduce, stage
from proceedings.moca.model import DiTConfig
from proceedings.moca.training import TrainConfig, to_tensors, train

MICRO = ExperimentConfig(
    classes=["chair"], components={"chair": (6, 7)}, train_samples=8, held_out=2,
    model=DiTConfig(points=8, dim=16, heads=2, depth=1, k=1, sigma=4, mlp_ratio=2),
    train=TrainConfig(steps=3, batch=2, warmup=1), sample_steps=2, sweep_ns=(2, 4), sweep_points=8, sweep_dim=8,
    sweep_repeats=1, resumable=True)


def test_a_wall_time_budget_stops_after_one_step_and_the_rerun_resumes_to_the_end(tmp_path):
    data = to_tensors(generate("chair", 4, (6, 6), points_per_component=8), ["chair"])
    cfg = TrainConfig(steps=3, batch=2, warmup=1)
    ckpt = tmp_path / "run.pt"
    _, first = train(MICRO.model, data, cfg, checkpoint=ckpt, max_seconds=0)
    assert first.steps == 1 and ckpt.exists()
    _, rest = train(MICRO.model, data, cfg, checkpoint=ckpt)
    assert rest.steps == 3 and rest.cpu_seconds >= first.cpu_seconds


def test_stage_does_one_piece_at_a_time_and_reproduce_gathers_them_without_training(tmp_path, monkeypatch):
    monkeypatch.setenv("PROCEEDINGS_CACHE", str(tmp_path))
    monkeypatch.setitem(experiment.CONFIGS, "small", MICRO)
    said = [stage("small", max_seconds=0) for _ in range(4 * 3 + 2)]  # 3 one-step pieces per arm, the sweep
    assert said[0].startswith("full: trained part of the way")  # one step, then the budget is spent
    assert any(s.startswith("local: trained and evaluated") for s in said)
    assert said[-1].startswith("every piece is done")
    assert said[-2] == said[-1]

    def no_training(*args, **kwargs):
        raise AssertionError("reproduce trained again")

    monkeypatch.setattr(experiment, "train", no_training)
    result = reproduce("small")
    assert result.baseline["steps"] == result.metrics["local"]["steps"] == 3
    assert set(result.checks) == set(experiment.verdict(result.metrics, result.baseline))


def test_the_tiny_preset_is_not_staged():
    from proceedings.core.errors import ProceedingsError

    with pytest.raises(ProceedingsError, match="not staged"):
        stage("tiny")
