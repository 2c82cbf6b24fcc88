"""NeuroSyntheos's verdict can fail: the baseline's numbers as the method's, one counterfactual per
check (gates first), and the committed records re-judge to their stored checks."""

import json
from pathlib import Path

import pytest

from proceedings.core.verdict import audit
from proceedings.neurosyntheos.experiment import SOUND, verdict

METRICS = {
    "held_out": 24, "solved": 20, "solved_fraction": 20 / 24, "unsound": 0, "invalid_tautologies": 0,
    "bad_certificates": 0,
    "both_solved": 12, "median_calls_both": 2.0, "median_neural_s": 0.4, "injected": 80,
    "rejected_proposals": 30, "first_batch_implies": 0.8, "first_batch_specs": 12,
    "all_edges": {"solved": 14, "unsound": 0, "invalid_tautologies": 0, "bad_certificates": 0,
                  "median_calls_both_with_neuro": 4.0,
                  "neuro_median_calls_both_with_all_edges": 2.0},
    "per_spec_calls": {},
    "out_of_family": {"solved": 16, "unsound": 0, "invalid_tautologies": 0, "bad_certificates": 0, "both_solved": 11,
                      "median_calls_both": 3.0, "cegres_median_calls_both": 6.0, "median_neural_s": 0.5},
}
BASELINE = {"name": "CEGRES", "solved": 12, "solved_fraction": 0.5, "unsound": 0, "invalid_tautologies": 0,
            "bad_certificates": 0,
            "median_calls_both": 6.0, "per_spec_calls": {}}
PASSING = {"metrics": METRICS, "baseline": BASELINE}
COUNTERFACTUALS = {
    "gate: CEGRES solves": {"baseline.solved_fraction": 0.2},
    "gate: the verified first batch implies": {"metrics.first_batch_implies": 0.4},
    "no unsound answer in any arm": {"metrics.all_edges.unsound": 1},
    "NeuroSyntheos solves >= CEGRES": {"metrics.solved": 14},
    "median synthesis calls <=": {"metrics.median_calls_both": 3.5},
    "median neural overhead": {"metrics.median_neural_s": 3.5},
}


def test_every_check_of_the_verdict_can_fail_alone_and_the_baseline_as_the_method_fails():
    assert audit(verdict, PASSING, COUNTERFACTUALS) == []


@pytest.mark.parametrize("change", [{"metrics.unsound": 1}, {"baseline.invalid_tautologies": 2},
                                    {"metrics.invalid_tautologies": 1}, {"baseline.bad_certificates": 1},
                                    {"metrics.all_edges.bad_certificates": 1}, {"metrics.out_of_family.unsound": 1},
                                    {"metrics.out_of_family.invalid_tautologies": 1}])
def test_any_unsound_answer_unchecked_certificate_or_unproved_tautology_fails_soundness(change):
    """In every arm, the out-of-family arm of the split by family included."""
    from proceedings.core.verdict import breaks
    assert breaks(verdict, PASSING, change) == [SOUND]


def test_fewer_than_five_specs_solved_by_both_cannot_show_the_call_reduction():
    from proceedings.core.verdict import breaks
    failing = breaks(verdict, PASSING, {"metrics.both_solved": 4})
    assert len(failing) == 1 and "median synthesis calls" in failing[0]


@pytest.mark.parametrize("path, interval, check", [
    ("metrics.median_calls_both", (1.0, 3.5), "median synthesis calls"),
    ("metrics.solved", (15.0, 25.0), "NeuroSyntheos solves >="),
    ("metrics.median_neural_s", (0.2, 3.4), "median neural overhead"),
])
def test_with_seeds_a_margin_must_hold_at_the_far_end_of_the_interval(path, interval, check):
    failing = [name for name, ok in verdict(METRICS, BASELINE, {path: interval}).items() if not ok]
    assert len(failing) == 1 and check in failing[0]
    assert all(verdict(METRICS, BASELINE, {path: (METRICS[path.split(".")[1]],) * 2}).values())


RECORDS = sorted((Path(__file__).parents[2] / "results" / "neurosyntheos").glob("*.json"))


@pytest.mark.parametrize("path", RECORDS, ids=[p.stem for p in RECORDS])
def test_the_committed_records_re_judge_to_their_stored_checks(path):
    record = json.loads(path.read_text())
    spread = (record.get("seeds") or {}).get("spread", {})  # several seeds: the checks read the 95 % intervals
    intervals = {key: tuple(s["ci95"]) for key, s in spread.items()} or None
    assert verdict(record["metrics"], record["baseline"], intervals) == record["checks"]


def test_the_split_by_family_is_recorded_not_judged_beyond_soundness():
    """Its solved count and calls inform the README; only an unsound answer in that arm moves the verdict."""
    from proceedings.core.verdict import breaks
    assert breaks(verdict, PASSING, {"metrics.out_of_family.solved": 0, "metrics.out_of_family.median_calls_both": 9.0}) == []
