"""PBT-Bench's verdict can fail: default strategies as the reference, and one counterfactual per check."""

import json
from pathlib import Path

from proceedings.core.verdict import audit, with_changes
from proceedings.pbtbench.experiment import verdict

PASSING = {"metrics": {"reference_recall": 1.0, "reference_false_positives": 0},
           "baseline": {"recall": 0.2, "recall_L2_L3": 0.03, "empty_recall": 0.0}}
COUNTERFACTUALS = {
    "reference recall == 1.0": {"metrics.reference_recall": 0.98},
    "on L2/L3": {"baseline.recall_L2_L3": 0.08},
    "< reference recall": {"baseline.recall": 1.0},
    "empty recall": {"baseline.empty_recall": 0.05},
    "false positives": {"metrics.reference_false_positives": 1},
}
# the method here is the reference properties: report the default strategy's recall as theirs
DEFAULT_AS_REFERENCE = with_changes(PASSING, {"metrics.reference_recall": 0.2})


def test_every_check_of_the_verdict_can_fail_alone_and_defaults_as_the_reference_fail():
    assert audit(verdict, PASSING, COUNTERFACTUALS, baseline_as_method=DEFAULT_AS_REFERENCE) == []


def test_the_committed_small_record_re_judges_to_its_stored_checks():
    record = json.loads((Path(__file__).parents[2] / "results" / "pbtbench" / "small.json").read_text())
    assert verdict(record["metrics"], record["baseline"]) == record["checks"]
