"""P-EAGLE's verdict can fail: the baseline's numbers as P-EAGLE's, and one counterfactual per check;
the committed records re-judge to their stored checks (several seeds: at their interval ends)."""

import json
from pathlib import Path

import pytest

from proceedings.core.verdict import audit, breaks
from proceedings.peagle.experiment import verdict

PASSING = {
    "metrics": {"depth0_accuracy": 0.60, "exact_prompts": 20, "prompts": 20, "lookup_exact_prompts": 20, "draft_ms_k7": 6.0, "tau_k7": 2.9,
                "tokens_per_s_k7": 40.0, "tokens_per_cpu_s_k7": 41.0, "partition_grad_max_diff": 1e-7,
                "partition_area_ratio": 0.26, "cost_model_max_rel_error": 0.08},
    "baseline": {"depth0_accuracy": 0.62, "exact_prompts": 20, "prompts": 20, "tau_k3": 2.5, "speedup_k3": 1.3,
                 "draft_ms_k7": 17.0, "tau_k7": 3.1, "tokens_per_s_k7": 35.0, "tokens_per_cpu_s_k7": 36.0},
}
COUNTERFACTUALS = {
    "gate: EAGLE-3 at K=3": {"baseline.speedup_k3": 1.05},
    "gate: P-EAGLE depth-0": {"metrics.depth0_accuracy": 0.50},
    "emits exactly the greedy tokens": {"metrics.exact_prompts": 19},
    "draft ms per round": {"metrics.draft_ms_k7": 9.0},
    "tau(P-EAGLE)": {"metrics.tau_k7": 2.5},
    "P-EAGLE tokens/s": {"metrics.tokens_per_cpu_s_k7": 37.0},
    "partitioned training": {"metrics.partition_area_ratio": 0.9},
    "within 15%": {"metrics.cost_model_max_rel_error": 0.3},
}


def test_every_check_of_the_verdict_can_fail_alone_and_the_baseline_as_peagle_fails():
    assert audit(verdict, PASSING, COUNTERFACTUALS) == []


def test_a_prompt_lookup_arm_that_differs_from_greedy_breaks_the_exactness_check_alone():
    assert breaks(verdict, PASSING, {"metrics.lookup_exact_prompts": 19}) == [
        rule for rule in verdict(**PASSING) if "emits exactly the greedy tokens" in rule]


@pytest.mark.parametrize("scale", ["tiny", "small"])
def test_the_committed_records_re_judge_to_their_stored_checks(scale):
    path = Path(__file__).parents[2] / "results" / "peagle" / f"{scale}.json"
    if not path.exists():
        pytest.skip(f"no committed {scale} record yet")
    record = json.loads(path.read_text())
    intervals = {path: s["ci95"] for path, s in (record.get("seeds") or {}).get("spread", {}).items()}
    assert verdict(record["metrics"], record["baseline"], intervals or None) == record["checks"]


@pytest.mark.parametrize("path, interval, broken", [
    ("baseline.tau_k3", (1.8, 2.6), "gate: EAGLE-3 at K=3"),
    ("metrics.depth0_accuracy", (0.50, 0.70), "gate: P-EAGLE depth-0"),
    ("metrics.draft_ms_k7", (5.0, 9.0), "draft ms per round"),
    ("baseline.tau_k7", (2.9, 3.6), "tau(P-EAGLE)"),
    ("baseline.tokens_per_cpu_s_k7", (33.0, 40.0), "P-EAGLE tokens/s"),
    ("metrics.partition_area_ratio", (0.2, 0.6), "partitioned training"),
    ("metrics.cost_model_max_rel_error", (0.02, 0.2), "within 15%"),
])
def test_with_seeds_each_margin_must_hold_at_the_far_end_of_its_interval(path, interval, broken):
    failing = [rule for rule, ok in verdict(**PASSING, intervals={path: interval}).items() if not ok]
    assert len(failing) == 1 and broken in failing[0]
    section, key = path.split(".")
    value = PASSING[section][key]
    assert all(verdict(**PASSING, intervals={path: (value, value)}).values())
