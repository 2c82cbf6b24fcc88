"""MobTA's verdict can fail: the baseline's numbers as MobTA's, and one counterfactual per check; the
committed records re-judge to their stored checks."""

import json
from pathlib import Path

import pytest

from proceedings.core.verdict import audit
from proceedings.mobta.experiment import verdict

PASSING = {
    "metrics": {"mean_jsd": 0.10, "validity": 0.97, "oracle_mean_jsd": 0.05, "own_task_validity_min": 0.95,
                "gap_vs_bus_only_ci": [0.15, 0.35], "gap_vs_source_only_ci": [0.10, 0.25]},
    "baseline": {"mean_jsd": 0.30, "validity": 0.96, "bus_only_mean_jsd": 0.40, "source_only_mean_jsd": 0.30},
}
COUNTERFACTUALS = {
    "own task": {"metrics.own_task_validity_min": 0.85},
    "gate: the oracle": {"metrics.oracle_mean_jsd": 0.2},
    "< bus-only's": {"metrics.gap_vs_bus_only_ci": [-0.01, 0.3]},
    "< source-only's": {"metrics.gap_vs_source_only_ci": [-0.02, 0.2]},
    "closes >= 50%": {"metrics.mean_jsd": 0.2},
    "MobTA validity": {"metrics.validity": 0.8},
}


def test_every_check_of_the_verdict_can_fail_alone_and_the_baseline_as_mobta_fails():
    assert audit(verdict, PASSING, COUNTERFACTUALS) == []


@pytest.mark.parametrize("scale", ["tiny", "small"])
def test_the_committed_records_re_judge_to_their_stored_checks(scale):
    path = Path(__file__).parents[2] / "results" / "mobta" / f"{scale}.json"
    if not path.exists():
        pytest.skip(f"no committed {scale} record yet")
    record = json.loads(path.read_text())
    assert verdict(record["metrics"], record["baseline"]) == record["checks"]


def test_an_arm_with_too_few_valid_samples_has_no_jsd_and_wins_nothing():
    checks = verdict({**PASSING["metrics"], "mean_jsd": None, "gap_vs_bus_only_ci": [None, None]}, PASSING["baseline"])
    assert [rule for rule, holds in checks.items() if not holds] == [
        rule for rule in checks if "bus-only's" in rule or "source-only's" in rule or "closes" in rule]
