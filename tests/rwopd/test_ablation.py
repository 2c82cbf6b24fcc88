"""The ablations' comparison: per-task pass@1 and syntax@1 from recorded samples, paired bootstrap
differences, and one-line errors for an unknown ablation or a missing run."""

import json

import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.rwopd.ablation import comparisons, paired_difference, per_task, run_ablations


def rows(verdicts: dict[str, list[str]]) -> list[dict]:
    return [{"task": task, "verdict": v} for task, vs in verdicts.items() for v in vs]


def test_per_task_counts_only_proved_equivalent_as_a_pass_and_every_elaborating_sample_as_syntax():
    table = per_task(rows({"t0": ["EQUIVALENT", "SYNTAX_ERROR"], "t1": ["EQUIVALENT_BOUNDED", "A_IMPLIES_B"]}))
    assert table == {"t0": {"pass@1": 0.5, "syntax@1": 0.5}, "t1": {"pass@1": 0.0, "syntax@1": 1.0}}


def test_paired_difference_is_the_mean_task_difference_with_an_interval_that_holds_it():
    better = per_task(rows({f"t{i}": ["EQUIVALENT", "EQUIVALENT"] for i in range(20)}))
    worse = per_task(rows({f"t{i}": ["EQUIVALENT" if i < 5 else "DIFFERENT"] * 2 for i in range(20)}))
    diff = paired_difference(better, worse, "pass@1")
    assert diff["mean"] == pytest.approx(0.75) and diff["tasks"] == 20
    assert 0.5 < diff["ci95"][0] <= 0.75 <= diff["ci95"][1] <= 1.0
    same = paired_difference(better, better, "pass@1")  # an arm against itself: exactly 0, a point interval
    assert same["mean"] == 0.0 and same["ci95"] == [0.0, 0.0]
    assert comparisons(rows({"t0": ["EQUIVALENT"]}), {"rwopd": rows({"t0": ["SYNTAX_ERROR"]})}) == {
        "rwopd": {"pass@1": {"mean": 1.0, "ci95": [1.0, 1.0], "tasks": 1},
                  "syntax@1": {"mean": 1.0, "ci95": [1.0, 1.0], "tasks": 1}}}


def test_arms_that_answered_different_tasks_are_not_paired():
    with pytest.raises(ProceedingsError, match="answered different tasks"):
        paired_difference(per_task(rows({"t0": ["EQUIVALENT"]})), per_task(rows({"t1": ["EQUIVALENT"]})), "pass@1")


def test_an_unknown_ablation_or_a_run_without_samples_is_a_one_line_error(tmp_path, monkeypatch):
    monkeypatch.setenv("PROCEEDINGS_CACHE", str(tmp_path))
    with pytest.raises(ProceedingsError, match="unknown ablation.*no-weights.*choose from: no-filter"):
        run_ablations("tiny", 0, ("no-weights",))
    with pytest.raises(ProceedingsError, match="has no rwopd, opd samples.*reproduce rwopd --scale tiny --seed 0"):
        run_ablations("tiny", 0, ("no-filter",))


def test_the_record_pairs_finished_ablations_with_the_runs_arms_without_loading_a_model(tmp_path, monkeypatch):
    from proceedings.rwopd.distill import TrainLog
    from proceedings.rwopd.experiment import Stages, run_folder

    monkeypatch.setenv("PROCEEDINGS_CACHE", str(tmp_path))
    folder = run_folder("tiny", 0)
    folder.mkdir(parents=True)
    for arm, verdict in (("rwopd", "DIFFERENT"), ("opd", "SYNTAX_ERROR")):
        (folder / f"{arm}_samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows({"t0": [verdict]})))
        Stages(folder).run(arm, lambda: {"eval": {"pass@1": 0.0}})
    stages = Stages(folder / "ablations")
    stages.run("reverse-kl", lambda: {"log": {"method": "rwopd"}, "entropy": {"entropy": 0.1},
                                      "eval": {"pass@1": 1.0}})
    stages.samples("reverse-kl").write_text(json.dumps({"task": "t0", "verdict": "EQUIVALENT", "reference": "sig_A",
                                                        "sample": "sig_A", "message": ""}) + "\n")
    record = run_ablations("tiny", 0, ("reverse-kl",))  # finished: nothing is trained, no model is loaded
    assert list(record["ablations"]) == ["reverse-kl"]
    ablation = record["ablations"]["reverse-kl"]
    assert ablation["switches"] == {"reward_filter": True, "forward_kl": False, "teacher_fallback": True}
    assert ablation["paired"]["rwopd"]["pass@1"]["mean"] == 1.0 and ablation["paired"]["opd"]["syntax@1"]["mean"] == 1.0
    assert ablation["training"]["generations"] == TrainLog("rwopd").generations
    assert record["compared_with"]["opd"] == {"pass@1": 0.0}
    assert record["rwopd_vs_opd"]["syntax@1"]["mean"] == 1.0  # RWOPD's DIFFERENT elaborates, OPD's sample does not
