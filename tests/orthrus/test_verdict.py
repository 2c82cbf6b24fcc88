"""Orthrus's verdict can fail: the untrained view's numbers as the trained one's, and one counterfactual per
check; the committed records re-judge to their stored checks."""

import json
from pathlib import Path

import pytest

from proceedings.core.verdict import audit
from proceedings.orthrus.experiment import verdict

PASSING = {
    "metrics": {"tau": 3.0, "tau_halfway": 1.9, "slot0_acceptance": 0.8, "exact_prompts": 20,
                "exact_prompts_other_block": 20, "prompts": 20, "audit_fp32_divergences": 0, "audit_fp32_prompts": 40,
                "nonlooping_prompts": 17, "extra_cache_bytes_ctx128": 368640, "extra_cache_bytes_ctx512": 368640,
                "extra_cache_bytes_ctx1024": 368640, "expected_extra_cache_bytes": 368640,
                "cost_model_max_rel_error": 0.08},
    "baseline": {"tau": 1.5, "slot0_acceptance": 0.45},
}
COUNTERFACTUALS = {
    "gate: trained tau": {"baseline.tau": 2.1, "metrics.tau_halfway": 2.2, "metrics.tau": 2.3},
    "gate: slot-0": {"metrics.slot0_acceptance": 0.5},
    "(1) Orthrus": {"metrics.exact_prompts_other_block": 19},
    "(2)": {"metrics.nonlooping_prompts": 0},
    "(3)": {"metrics.tau_halfway": 1.4},
    "(4)": {"metrics.extra_cache_bytes_ctx1024": 400000},
    "(5)": {"metrics.cost_model_max_rel_error": 0.3},
}


def test_every_check_of_the_verdict_can_fail_alone_and_the_untrained_view_as_orthrus_fails():
    assert audit(verdict, PASSING, COUNTERFACTUALS) == []


def test_a_divergence_found_by_the_audit_breaks_exactness_even_when_the_benchmark_matched():
    record = {**PASSING, "metrics": {**PASSING["metrics"], "audit_fp32_divergences": 1}}
    assert [rule for rule, ok in verdict(**record).items() if not ok] == [
        rule for rule in verdict(**PASSING) if rule.startswith("(1)")]


@pytest.mark.parametrize("path, interval, broken", [
    ("metrics.tau", (1.95, 3.5), ["(2)"]),
    ("baseline.tau", (1.0, 2.75), ["gate: trained tau", "(3)"]),
    ("metrics.slot0_acceptance", (0.55, 0.9), ["gate: slot-0"]),
    ("metrics.tau_halfway", (1.4, 2.0), ["(3)"]),
    ("metrics.cost_model_max_rel_error", (0.05, 0.2), ["(5)"]),
])
def test_with_seeds_each_margin_must_hold_at_the_far_end_of_its_interval(path, interval, broken):
    failing = [rule for rule, ok in verdict(**PASSING, intervals={path: interval}).items() if not ok]
    assert [next(prefix for prefix in broken if rule.startswith(prefix)) for rule in failing] == broken
    value = PASSING[path.split(".")[0]][path.split(".")[1]]
    assert all(verdict(**PASSING, intervals={path: (value, value)}).values())


@pytest.mark.parametrize("scale", ["tiny", "small"])
def test_the_committed_records_re_judge_to_their_stored_checks(scale):
    path = Path(__file__).parents[2] / "results" / "orthrus" / f"{scale}.json"
    if not path.exists():
        pytest.skip(f"no committed {scale} record yet")
    record = json.loads(path.read_text())
    assert verdict(record["metrics"], record["baseline"]) == record["checks"]
