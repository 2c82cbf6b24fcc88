"""NAS's verdict can fail: the base editor's numbers as NAS's, and one counterfactual per check."""

import json
from pathlib import Path

from proceedings.core.verdict import audit
from proceedings.nas.experiment import verdict

BASE = {"slope_early_per_100": 0.20, "slope_late_per_100": 0.45, "weight_growth": 0.60, "max_weight_growth": 0.60,
        "score": 0.55, "ppl": 30.0}
NAS = {"slope_early_per_100": 0.03, "slope_late_per_100": 0.02, "weight_growth": 0.05, "max_weight_growth": 0.06,
       "score": 0.80, "ppl": 18.0}
PASSING = {"metrics": {"editors": ["memit", "alphaedit"], **NAS, **{f"alphaedit_{k}": v for k, v in NAS.items()}},
           "baseline": {**BASE, **{f"alphaedit_{k}": v for k, v in BASE.items()}}}
COUNTERFACTUALS = {
    "memit: the base editor's": {"baseline.slope_late_per_100": 0.15},
    "memit: NAS keeps": {"metrics.max_weight_growth": 0.12},
    "memit: NAS ends with the higher edit score": {"metrics.score": 0.50},
    "memit: NAS ends with the lower held-out": {"metrics.ppl": 31.0},
    "alphaedit: the base editor's": {"baseline.alphaedit_weight_growth": 0.0},
    "alphaedit: NAS keeps": {"metrics.alphaedit_max_weight_growth": 0.2},
    "alphaedit: NAS ends with the higher edit score": {"metrics.alphaedit_score": 0.55},
    "alphaedit: NAS ends with the lower held-out": {"metrics.alphaedit_ppl": 30.0},
}


def test_every_check_of_the_verdict_can_fail_alone_and_the_base_editor_as_nas_fails():
    assert audit(verdict, PASSING, COUNTERFACTUALS) == []


def test_the_committed_small_record_re_judges_to_its_stored_checks():
    record = json.loads((Path(__file__).parents[2] / "results" / "nas" / "small.json").read_text())
    metrics = {"editors": record["config"]["methods"], **record["metrics"]}  # recorded before "editors" was
    assert verdict(metrics, record["baseline"]) == record["checks"]
