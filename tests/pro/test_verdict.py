"""PRO's verdict can fail: the baseline's numbers as PRO's, and one counterfactual per check."""

import json
from pathlib import Path

from proceedings.core.verdict import audit
from proceedings.pro.experiment import verdict

PASSING = {"metrics": {"auc": 0.90, "tpr_at_5fpr": 0.60, "ppl": 10.0, "auc_merge": 0.85},
           "baseline": {"auc": 0.80, "tpr_at_5fpr": 0.50, "ppl": 10.2, "auc_merge": 0.75}}
COUNTERFACTUALS = {
    "PRO AUC >=": {"metrics.auc": 0.79},
    "TPR@5%FPR": {"metrics.tpr_at_5fpr": 0.40},
    "PPL <=": {"metrics.ppl": 10.8},
    "after alpha": {"metrics.auc_merge": 0.75},
}


def test_every_check_of_the_verdict_can_fail_alone_and_the_baseline_as_pro_fails():
    assert audit(verdict, PASSING, COUNTERFACTUALS) == []


def test_the_committed_small_record_re_judges_to_its_stored_checks():
    record = json.loads((Path(__file__).parents[2] / "results" / "pro" / "small.json").read_text())
    assert verdict(record["metrics"], record["baseline"]) == record["checks"]
