"""A comparison cut into pieces by a time budget resumes where it stopped: rendering after each shard, training
after each step (test_training), evaluation after each stage; the pieces' times add up in the ledger."""

import math
from dataclasses import replace

import pytest

from proceedings.core.staging import Paused
from proceedings.motionforcing import evaluators, experiment
from proceedings.motionforcing.dataset import build
from proceedings.motionforcing.staged_run import StagedRun

MICRO = replace(experiment.CONFIGS["tiny"], size=16, frames=4, train_clips=8, test_clips=4, ego_scenes=1,
                width_stage1=4, width_stage2=4, steps_stage1=2, steps_stage2=2, localiser_steps=2, localiser_batch=4,
                localiser_width=4, agents=(2, 3), bootstrap=50)
TIMING = ("staged", "training", "peak_rss_mb")


def test_a_stage_runs_once_and_a_piece_past_its_budget_stops_after_one_stage(tmp_path):
    calls = []
    first = StagedRun(tmp_path, deadline=0.0)  # the budget is spent from the start
    assert first.stage("a", lambda: calls.append("a") or {"x": 1.5}) == {"x": 1.5}  # a piece always makes progress
    with pytest.raises(Paused, match="before stage 'b'"):
        first.stage("b", lambda: calls.append("b") or {})
    second = StagedRun(tmp_path, deadline=None)
    assert second.stage("a", lambda: calls.append("a again") or {}) == {"x": 1.5}  # stored, not recomputed
    assert second.stage("b", lambda: calls.append("b") or {"y": [math.nan]})["y"][0] != 0
    assert calls == ["a", "b"]
    totals = second.totals()
    assert totals["pieces"] == 2 and set(totals["stages"]) == {"a", "b"}
    assert totals["cpu_s"] == pytest.approx(sum(s["cpu_s"] for s in totals["stages"].values()))


def test_a_timed_block_that_pauses_still_adds_its_time(tmp_path):
    run = StagedRun(tmp_path, deadline=None)
    with pytest.raises(Paused), run.timed("train"):
        sum(range(200_000))
        raise Paused("budget")
    assert run.totals()["stages"]["train"]["cpu_s"] >= 0 and StagedRun(tmp_path, None).ledger["stages"]["train"]


def test_rendering_past_its_deadline_stops_after_each_shard_and_resumes(tmp_path):
    with pytest.raises(Paused, match="2/4 clips"):
        build(tmp_path, 4, 3, 16, 0, shard=2, agents=(2, 3), deadline=0.0)
    resumed = build(tmp_path, 4, 3, 16, 0, shard=2, agents=(2, 3))
    straight = build(tmp_path / "straight", 4, 3, 16, 0, shard=2, agents=(2, 3))
    assert (resumed.rgb == straight.rgb).all() and (resumed.centres == straight.centres).all()


def _run(monkeypatch, root, budget_minutes: str | None) -> tuple[object, int]:
    """reproduce('tiny') on MICRO in a fresh cache, re-run after every pause; (result, pieces)."""
    monkeypatch.setenv("PROCEEDINGS_CACHE", str(root / "cache"))
    monkeypatch.setenv("PROCEEDINGS_RESULTS", str(root / "results"))
    if budget_minutes:
        monkeypatch.setenv(experiment.BUDGET_ENV, budget_minutes)
    else:
        monkeypatch.delenv(experiment.BUDGET_ENV, raising=False)
    for pieces in range(1, 60):
        try:
            return experiment.reproduce("tiny"), pieces
        except Paused:
            continue
    raise AssertionError("the staged run did not finish in 60 pieces")


def _flat(tree, prefix=""):
    if isinstance(tree, dict):
        return {k: v for key, sub in tree.items() for k, v in _flat(sub, f"{prefix}{key}.").items()}
    if isinstance(tree, list):
        return {k: v for i, sub in enumerate(tree) for k, v in _flat(sub, f"{prefix}{i}.").items()}
    return {prefix: math.nan if tree is None else tree}  # None: a number not measured for that arm


@pytest.mark.slow  # ~18 CPU-s: two whole micro comparisons, one of them in ~19 pieces
def test_a_run_paused_after_every_shard_step_and_stage_ends_with_the_uncut_runs_numbers(monkeypatch, tmp_path):
    monkeypatch.setitem(experiment.CONFIGS, "tiny", MICRO)
    # a 2-step localiser's readout is a near-singular least-squares fit whose answer swings with the last bit of
    # a convolution; the identity readout (centroid) keeps this test about staging, not about that conditioning
    monkeypatch.setattr(evaluators, "fit_readout", lambda *args, **kwargs: None)
    uncut, one = _run(monkeypatch, tmp_path / "uncut", None)
    staged, pieces = _run(monkeypatch, tmp_path / "staged", "1e-9")
    assert one == 1 and pieces >= 4 + 5 + 7  # a piece per set (one shard each), per network, per suite
    assert staged.metrics["staged"]["pieces"] == pieces
    assert set(staged.metrics["staged"]["stages"]) == {"render", "train", "gates", "suite:full", "suite:span",
                                                       "suite:future:2", "suite:future:4", "suite:drop",
                                                       "suite:keyframes", "suite:ego_only"}
    for part in ("metrics", "baseline"):
        a, b = (_flat({k: v for k, v in getattr(r, part).items() if k not in TIMING}) for r in (staged, uncut))
        words = {k for k, v in b.items() if isinstance(v, str)}
        assert {k: a.pop(k) for k in words} == {k: b.pop(k) for k in words}
        assert a == pytest.approx(b, rel=1e-6, nan_ok=True)
    assert staged.checks == uncut.checks
