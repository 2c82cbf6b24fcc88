"""Motion Forcing's verdict can fail: B1's numbers as MF's, one counterfactual per check, and the committed
records re-judge to their stored checks."""

import json
from pathlib import Path

import pytest

from proceedings.core.verdict import audit
from proceedings.motionforcing.experiment import verdict

ARM = {"control_err_full": 1.0, "hit_full": 0.8, "psnr_full": 24.0, "recovery_err": 2.0, "fvmd_future": 50.0,
       "ego_epe_ego_only": 0.5, "control_err_ego_only": 1.0, "hit_ego_only": 0.8}
PASSING = {
    "metrics": {**ARM, "localiser_gt_err": 0.3, "localiser_gt_hit": 0.98, "ego_epe_gt": 0.2, "fvmd_gt_twin": 10.0,
                "fvmd_gt_copy": 100.0, "abs_rel_full": 0.1,
                "no_mpr": {**ARM, "recovery_err": 3.0}, "copy": {**ARM, "control_err_full": 4.0, "control_err_ego_only": 4.0},
                "ci": {"mpr_minus_no_mpr_recovery": [-1.2, -0.8], "mf_minus_direct_recovery": [-1.2, -0.8]}},
    "baseline": {**ARM, "recovery_err": 3.0, "fvmd_future": 60.0, "ego_epe_ego_only": 0.8, "psnr_full": 24.5},
}
COUNTERFACTUALS = {
    "localiser on GT": {"metrics.localiser_gt_hit": 0.9},
    "ego-flow EPE on GT": {"metrics.ego_epe_gt": 0.35},
    "FVMD-proxy(GT, GT')": {"metrics.fvmd_gt_twin": 25.0},
    "every trained arm": {"metrics.no_mpr.hit_full": 0.5},
    "AbsRel": {"metrics.abs_rel_full": 0.25},
    "MPR: recovery error": {"metrics.ci.mpr_minus_no_mpr_recovery": [-1.2, 0.1]},
    "MPR is free": {"metrics.no_mpr.control_err_full": 0.7},
    "hierarchy where depth matters": {"metrics.fvmd_future": 61.0},
    "non-inferior": {"baseline.psnr_full": 25.5},
    "decoupling": {"metrics.ego_epe_ego_only": 0.9},
}


def test_every_check_of_the_verdict_can_fail_alone_and_b1_as_motion_forcing_fails():
    assert audit(verdict, PASSING, COUNTERFACTUALS) == []


def test_the_gates_come_first():
    rules = list(verdict(PASSING["metrics"], PASSING["baseline"]))
    assert all(rule.startswith(("G1", "G2")) for rule in rules[:5])


@pytest.mark.parametrize("scale", ["tiny", "small", "long"])
def test_the_committed_records_re_judge_to_their_stored_checks(scale):
    path = Path(__file__).parents[2] / "results" / "motionforcing" / f"{scale}.json"
    if not path.exists():
        pytest.skip(f"no committed {scale} record yet")
    record = json.loads(path.read_text())
    assert verdict(record["metrics"], record["baseline"]) == record["checks"]
