"""PRO's verdict can fail: the baseline's numbers as PRO's, and one counterfactual per check (gates,
matched strength, the claim), with one seed and with seed intervals of the paired differences."""

import json
from pathlib import Path

import pytest

from proceedings.core.verdict import audit
from proceedings.pro.experiment import verdict
from proceedings.pro.verdict import teacher_kl_mismatch

ARM = {"decoding_auc": 1.0, "student_gap_low": 0.01, "teacher_kl": 0.35, "teacher_kl_end": 0.35}
PASSING = {"metrics": {**ARM, "auc": 0.90, "tpr_at_5fpr": 0.60, "ppl": 10.0, "auc_merge": 0.85, "auc_diff": 0.10,
                       "auc_merge_diff": 0.10, "tpr_at_5fpr_diff": 0.10, "ppl_ratio": 0.98,
                       "teacher_kl_mismatch": 0.03},
           "baseline": {**ARM, "teacher_kl": 0.36, "auc": 0.80, "tpr_at_5fpr": 0.50, "ppl": 10.2, "auc_merge": 0.75}}
COUNTERFACTUALS = {
    "KGW-distill's decoding-time": {"baseline.decoding_auc": 0.90},
    "PRO's decoding-time": {"metrics.decoding_auc": 0.94},
    "KGW-distill student's green gap": {"baseline.student_gap_low": -0.001},
    "PRO student's green gap": {"metrics.student_gap_low": 0.0},
    "at calibration": {"metrics.teacher_kl": 0.30},
    "every evaluation point": {"metrics.teacher_kl_mismatch": 0.06},
    "PRO AUC >=": {"metrics.auc": 0.79},
    "TPR@5%FPR": {"metrics.tpr_at_5fpr": 0.40},
    "PPL <=": {"metrics.ppl": 10.8},
    "after alpha": {"metrics.auc_merge": 0.75},
}
SEED_INTERVALS = {"metrics.auc_diff": [0.02, 0.18], "metrics.auc_merge_diff": [0.01, 0.2],
                  "metrics.tpr_at_5fpr_diff": [0.0, 0.2], "metrics.ppl_ratio": [0.9, 1.04],
                  "metrics.teacher_kl_mismatch": [0.0, 0.045]}
WITH_SEEDS = {**PASSING, "intervals": SEED_INTERVALS}
SEED_COUNTERFACTUALS = {  # (a dotted key cannot be addressed inside `intervals`: replace the whole dict)
    **COUNTERFACTUALS,
    "PRO AUC >=": {"intervals": {**SEED_INTERVALS, "metrics.auc_diff": [-0.05, 0.2]}},
    "TPR@5%FPR": {"intervals": {**SEED_INTERVALS, "metrics.tpr_at_5fpr_diff": [-0.05, 0.2]}},
    "PPL <=": {"intervals": {**SEED_INTERVALS, "metrics.ppl_ratio": [0.9, 1.08]}},
    "after alpha": {"intervals": {**SEED_INTERVALS, "metrics.auc_merge_diff": [0.0, 0.2]}},
    "every evaluation point": {"intervals": {**SEED_INTERVALS, "metrics.teacher_kl_mismatch": [0.0, 0.07]}},
}


def test_every_check_of_the_verdict_can_fail_alone_and_the_baseline_as_pro_fails():
    assert audit(verdict, PASSING, COUNTERFACTUALS) == []


def test_with_seeds_each_margin_fails_when_its_seed_interval_reaches_the_wrong_side():
    assert audit(verdict, WITH_SEEDS, SEED_COUNTERFACTUALS) == []


def test_kl_mismatch_is_the_worst_point_of_pros_path_including_calibration_and_the_end():
    kgw = {"teacher_kl_end": 0.35}
    pro = {"teacher_kl": 0.35, "teacher_kl_path": [0.352, 0.385, 0.351], "teacher_kl_end": 0.349}
    assert teacher_kl_mismatch(pro, kgw) == pytest.approx(0.385 / 0.35 - 1)  # a drift in mid-training counts
    assert teacher_kl_mismatch({**pro, "teacher_kl_path": []}, kgw) == pytest.approx(1 - 0.349 / 0.35)


@pytest.mark.parametrize("scale", ["tiny", "small"])
def test_the_committed_records_re_judge_to_their_stored_checks(scale):
    record = json.loads((Path(__file__).parents[2] / "results" / "pro" / f"{scale}.json").read_text())
    if "decoding_auc" not in record["baseline"]:
        pytest.skip(f"results/pro/{scale}.json is a round-1 record (before matched strength and the gates)")
    intervals = {path: spread["ci95"] for path, spread in (record.get("seeds") or {}).get("spread", {}).items()}
    assert verdict(record["metrics"], record["baseline"], intervals) == record["checks"]
