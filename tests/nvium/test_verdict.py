"""N-vium's verdict can fail: the baseline's numbers as N-vium's, and one counterfactual per check."""

import json
from pathlib import Path

from proceedings.core.verdict import audit
from proceedings.nvium.experiment import verdict

PASSING = {"metrics": {"bpb": 2.50, "speedup": 1.6}, "baseline": {"bpb": 2.49, "speedup": 1.0}}
COUNTERFACTUALS = {"bpb <=": {"metrics.bpb": 2.52}, "tokens/s ratio": {"metrics.speedup": 1.15}}


def test_every_check_of_the_verdict_can_fail_alone_and_the_baseline_as_nvium_fails():
    assert audit(verdict, PASSING, COUNTERFACTUALS) == []


def test_the_committed_small_record_re_judges_to_its_stored_checks():
    record = json.loads((Path(__file__).parents[2] / "results" / "nvium" / "small.json").read_text())
    assert verdict(record["metrics"], record["baseline"]) == record["checks"]
