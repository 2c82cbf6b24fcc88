"""OopsWorld's verdict can fail: gates first, the baseline's numbers as the method's fail, one
counterfactual per check breaks only it, a paired interval that crosses its margin breaks its check even
when the means clear it (alone, one seed and several); committed records re-judge to their stored checks."""

import json
from pathlib import Path

import pytest

from proceedings.core.verdict import audit, breaks
from proceedings.oopsworld.experiment import verdict


def _arm(change, anchor, anchor_last, psnr_last, dd, excess, lq):
    return {"change_acc": change, "anchor_acc": anchor, "anchor_acc_last_segment": anchor_last,
            "psnr_last_segment": psnr_last, "dynamic_degree": dd, "excess_dynamic_degree": excess, "long_quality": lq}


def _paired(mean, low, high):
    return {"mean": mean, "low": low, "high": high}


# paired differences over episodes consistent with the means below, every interval clear of its margin
PAIRED = {"b1_anchor_gap": _paired(0.12, 0.06, 0.18), "b1_anchor_gap_minus_change_gap": _paired(0.10, 0.04, 0.16),
          "anchor_minus_b1_midpoint": _paired(0.01, 0.002, 0.02), "psnr_last_segment_minus_b2": _paired(2.0, 1.4, 2.6),
          "anchor_last_segment_minus_b2": _paired(0.1, 0.05, 0.15), "dynamic_degree_minus_b1": _paired(0.15, 0.05, 0.25),
          "dynamic_degree_minus_b2": _paired(0.2, 0.1, 0.3), "dynamic_degree_minus_gt": _paired(0.05, 0.0, 0.09),
          "anchor_minus_b2": _paired(0.01, -0.01, 0.03), "long_quality_minus_b1": _paired(0.1, 0.05, 0.15),
          "long_quality_minus_b2": _paired(0.1, 0.04, 0.16)}
EASY = {"change_acc": 0.9, "anchor_acc": 0.95, "dynamic_degree": 0.6, "excess_dynamic_degree": 0.0}
PASSING = {
    "metrics": {**_arm(0.6, 0.85, 0.8, 20.0, 0.6, 0.05, 0.7),
                "gates": {"gt_change_acc": 0.98, "gt_anchor_acc": 0.99, "frozen_change_acc_dynamic_ops": 0.1,
                          "frozen_dynamic_degree": 0.0, "dd_gt": 0.55, "dd_gt_easy": 0.6,
                          "easy": {"teacher_explicit": dict(EASY), "b2_implicit": dict(EASY)}},
                "paired": PAIRED},
    "baseline": {"name": "B2", **_arm(0.55, 0.84, 0.7, 18.0, 0.4, -0.15, 0.6),
                 "b1": {"explicit": _arm(0.6, 0.9, 0.85, 19.0, 0.5, -0.05, 0.65),
                        "implicit": _arm(0.58, 0.78, 0.7, 17.0, 0.45, -0.1, 0.6),
                        "anchor_gap": 0.12, "change_gap": 0.02}},
}
COUNTERFACTUALS = {
    "G1: probes on GT": {"metrics.gates.gt_anchor_acc": 0.95},
    "G1: frozen-first-frame": {"metrics.gates.frozen_dynamic_degree": 0.1},
    "G2: teacher": {"metrics.gates.easy.teacher_explicit.change_acc": 0.5},
    "G2: B2": {"metrics.gates.easy.b2_implicit.excess_dynamic_degree": 0.3},
    "gap: B1 anchor": {"baseline.b1.explicit.anchor_acc": 0.82},
    "half of B1's anchor gap": {"metrics.anchor_acc": 0.83},
    "less drift": {"metrics.psnr_last_segment": 18.5},
    "dynamics: OopsWorld DD": {"metrics.dynamic_degree": 0.45, "metrics.excess_dynamic_degree": -0.1},
    "Long-Quality": {"metrics.long_quality": 0.6},
}


# the round-11 case: means clear every margin, one paired interval does not (e.g. [-0.003, +0.017] for check 3)
INTERVAL_ONLY = {
    "gap: B1 anchor": {"metrics.paired.b1_anchor_gap.low": -0.01},
    "half of B1's anchor gap": {"metrics.paired.anchor_minus_b1_midpoint.low": -0.003},
    "less drift": {"metrics.paired.psnr_last_segment_minus_b2.low": 0.8},
    "dynamics: OopsWorld DD": {"metrics.paired.dynamic_degree_minus_gt.high": 0.12},
    "Long-Quality": {"metrics.paired.long_quality_minus_b2.low": -0.01},
}
SEED_INTERVALS = {  # several seeds: the seed interval of each paired mean replaces the bootstrap
    "gap: B1 anchor": {"metrics.paired.b1_anchor_gap_minus_change_gap.mean": (-0.02, 0.2)},
    "half of B1's anchor gap": {"metrics.paired.anchor_minus_b1_midpoint.mean": (-0.004, 0.03)},
    "less drift": {"metrics.paired.anchor_last_segment_minus_b2.mean": (-0.01, 0.2)},
    "dynamics: OopsWorld DD": {"metrics.paired.anchor_minus_b2.mean": (-0.03, 0.05)},
    "Long-Quality": {"metrics.paired.long_quality_minus_b1.mean": (-0.01, 0.2)},
}


def test_every_check_of_the_verdict_can_fail_alone_and_the_baseline_as_the_method_fails():
    assert audit(verdict, PASSING, COUNTERFACTUALS) == []


@pytest.mark.parametrize("fragment", list(INTERVAL_ONLY))
def test_a_paired_interval_crossing_its_margin_fails_its_check_alone_though_the_means_pass(fragment):
    failing = breaks(verdict, PASSING, INTERVAL_ONLY[fragment])
    assert len(failing) == 1 and fragment in failing[0]


@pytest.mark.parametrize("fragment", list(SEED_INTERVALS))
def test_with_seeds_the_seed_interval_of_a_paired_mean_decides_not_the_bootstrap(fragment):
    assert breaks(verdict, {**PASSING, "intervals": {}}) == []
    failing = breaks(verdict, {**PASSING, "intervals": SEED_INTERVALS[fragment]})
    assert len(failing) == 1 and fragment in failing[0]


def test_flicker_cannot_win_dynamics_excess_motion_or_lost_anchors_fail_the_dd_check():
    for changes in ({"excess_dynamic_degree": 0.3}, {"anchor_acc": 0.8}):
        metrics = {**PASSING["metrics"], **changes}
        failing = [rule for rule, holds in verdict(metrics, PASSING["baseline"]).items() if not holds]
        assert any(rule.startswith("dynamics") for rule in failing)


@pytest.mark.parametrize("scale", ["tiny", "small"])
def test_the_committed_records_re_judge_to_their_stored_checks(scale):
    path = Path(__file__).parents[2] / "results" / "oopsworld" / f"{scale}.json"
    if not path.exists():
        pytest.skip(f"no committed {scale} record yet")
    record = json.loads(path.read_text())
    assert verdict(record["metrics"], record["baseline"]) == record["checks"]
