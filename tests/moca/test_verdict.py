"""MoCA's verdict can fail: Full's numbers as MoCA's, and one counterfactual per check; committed records re-judge."""

import json
from pathlib import Path

import pytest

from proceedings.core.verdict import audit
from proceedings.moca.experiment import verdict

ARM = {"part_iou": 0.5, "one_nna": 0.7, "violation_rate": 0.05}
PASSING = {
    "metrics": {**ARM, "flops_slope": 1.5, "flops_at_max_n": 1.0e9, "ms_fwd_bwd_at_max_n": 40.0,
                "reference_part_iou": 0.7, "grammar_violation_rate": 0.0, "sweep_max_n": 128,
                "topk_drop": {**ARM, "violation_rate": 0.2}, "local": {**ARM, "violation_rate": 0.3}},
    "baseline": {"name": "Full", **ARM, "violation_rate": 0.04, "flops_slope": 2.0, "flops_at_max_n": 6.0e9,
                 "ms_fwd_bwd_at_max_n": 120.0},
}
COUNTERFACTUALS = {
    "gate: Full's part IoU": {"metrics.reference_part_iou": 0.9},
    "gate: Full's violation": {"metrics.grammar_violation_rate": 0.01},
    "(2)": {"metrics.flops_slope": 1.7},
    "(3)": {"baseline.ms_fwd_bwd_at_max_n": 70.0},
    "(4)": {"metrics.one_nna": 0.8},
    "(5)": {"metrics.topk_drop.violation_rate": 0.06},
}


def test_every_check_of_the_verdict_can_fail_alone_and_full_reported_as_moca_fails():
    assert audit(verdict, PASSING, COUNTERFACTUALS) == []


def test_a_sweep_that_stopped_short_of_n_128_fails_the_cost_checks():
    short = {**PASSING, "metrics": {**PASSING["metrics"], "sweep_max_n": 32}}
    assert [rule[:3] for rule, ok in verdict(**short).items() if not ok] == ["(2)", "(3)"]


def test_local_only_violating_no_more_than_full_fails_the_gate():
    tie = {**PASSING, "metrics": {**PASSING["metrics"], "local": {**ARM, "violation_rate": 0.05}}}
    failed = [rule for rule, ok in verdict(**tie).items() if not ok]
    assert failed[0].startswith("gate: Full's violation")


@pytest.mark.parametrize("scale", ["tiny", "small"])
def test_the_committed_records_re_judge_to_their_stored_checks(scale):
    path = Path(__file__).parents[2] / "results" / "moca" / f"{scale}.json"
    if not path.exists():
        pytest.skip(f"no committed {scale} record yet")
    record = json.loads(path.read_text())
    assert verdict(record["metrics"], record["baseline"]) == record["checks"]
