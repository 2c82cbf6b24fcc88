"""PBT-Bench's verdict can fail: default strategies as the reference, and one counterfactual per check."""

import json
from pathlib import Path

import pytest

from proceedings.core.verdict import audit, with_changes
from proceedings.pbtbench.experiment import verdict

PASSING = {"metrics": {"reference_recall": 0.97, "mean_reach": 0.61, "cheat_recall": 0.0, "scoring_seed": 7000,
                       "reach_seeds": [7100, 7101], "admission_seeds": [[1000, 1009]]},
           "baseline": {"recall": 0.2, "recall_L2_L3": 0.03}}
COUNTERFACTUALS = {
    "disjoint from the admission seeds": {"metrics.scoring_seed": 1004},
    "mean reach rate": {"metrics.mean_reach": 0.15},
    "reference recall >= 0.95": {"metrics.reference_recall": 0.93},
    "on L2+L3": {"baseline.recall_L2_L3": 0.08},
    "cheat file": {"metrics.cheat_recall": 0.02},
}
# the method here is the reference properties: report the default strategy's recall as theirs
DEFAULT_AS_REFERENCE = with_changes(PASSING, {"metrics.reference_recall": 0.2})


def test_every_check_of_the_verdict_can_fail_alone_and_defaults_as_the_reference_fail():
    assert audit(verdict, PASSING, COUNTERFACTUALS, baseline_as_method=DEFAULT_AS_REFERENCE) == []


def test_reach_seeds_inside_the_admission_range_fail_the_gate():
    overlapping = with_changes(PASSING, {"metrics.reach_seeds": [1008, 1011]})
    assert not verdict(**overlapping)["gate: scoring and reach seeds disjoint from the admission seeds"]


def test_a_set_without_l2_or_l3_bugs_fails_the_default_strategy_check():
    vacuous = with_changes(PASSING, {"baseline.recall_L2_L3": None})
    assert [check for check, ok in verdict(**vacuous).items() if not ok] == [
        "default-strategy recall on L2+L3 <= 0.05 (fresh seeds; some L2/L3 bugs scored)"]


def test_the_committed_small_record_re_judges_to_its_stored_checks():
    path = Path(__file__).parents[2] / "results" / "pbtbench" / "small.json"
    record = json.loads(path.read_text())
    assert verdict(record["metrics"], record["baseline"]) == record["checks"]
