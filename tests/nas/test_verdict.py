"""NAS's verdict can fail: the base editor's numbers as NAS's, and one counterfactual per check."""

import json
from pathlib import Path

import pytest

from proceedings.core.verdict import audit
from proceedings.nas.experiment import verdict

BASE = {"slope_early_per_100": 0.20, "slope_late_per_100": 0.45, "weight_growth": 0.60, "max_weight_growth": 0.60,
        "score": 0.55, "ppl": 30.0, "cap_hit": 0.02, "loop_gain_update": 0.8}
NAS = {"slope_early_per_100": 0.03, "slope_late_per_100": 0.02, "weight_growth": 0.05, "max_weight_growth": 0.06,
       "score": 0.80, "ppl": 18.0, "cap_hit": 0.0, "loop_gain_update": -0.1}
PASSING = {"metrics": {"editors": ["memit", "alphaedit"], **NAS, **{f"alphaedit_{k}": v for k, v in NAS.items()}},
           "baseline": {**BASE, **{f"alphaedit_{k}": v for k, v in BASE.items()}}}
COUNTERFACTUALS = {
    "memit: gate: both arms' value solves converge": {"metrics.cap_hit": 0.3},
    "memit: gate: the base editor's loop gain": {"baseline.loop_gain_update": 0.3},
    "memit: the base editor's ||W||_F grows": {"baseline.slope_late_per_100": 0.15},
    "memit: NAS keeps": {"metrics.max_weight_growth": 0.12},
    "memit: NAS ends with the higher edit score": {"metrics.score": 0.50},
    "memit: NAS ends with the lower held-out": {"metrics.ppl": 31.0},
    "alphaedit: gate: both arms' value solves converge": {"baseline.alphaedit_cap_hit": 0.11},
    "alphaedit: gate: the base editor's loop gain": {"baseline.alphaedit_loop_gain_update": 0.0},
    "alphaedit: the base editor's ||W||_F grows": {"baseline.alphaedit_weight_growth": 0.0},
    "alphaedit: NAS keeps": {"metrics.alphaedit_max_weight_growth": 0.2},
    "alphaedit: NAS ends with the higher edit score": {"metrics.alphaedit_score": 0.55},
    "alphaedit: NAS ends with the lower held-out": {"metrics.alphaedit_ppl": 30.0},
}
RESULTS = Path(__file__).parents[2] / "results" / "nas"


def test_every_check_of_the_verdict_can_fail_alone_and_the_base_editor_as_nas_fails():
    assert audit(verdict, PASSING, COUNTERFACTUALS) == []


@pytest.mark.parametrize("scale", ["tiny", "small"])
def test_the_committed_records_re_judge_to_their_stored_checks(scale):
    record = json.loads((RESULTS / f"{scale}.json").read_text())
    assert verdict(record["metrics"], record["baseline"]) == record["checks"]


LONG_BASE = {**BASE, "horizon_reached": True}
LONG_NAS = {**NAS, "horizon_ratio": 5.0, "score_at_base_end": 0.80, "ppl_at_base_end": 18.0}
LONG_PASSING = {"metrics": {"editors": ["memit", "alphaedit"], "stream_to_collapse": True, **LONG_NAS,
                            **{f"alphaedit_{k}": v for k, v in LONG_NAS.items()}},
                "baseline": {**LONG_BASE, **{f"alphaedit_{k}": v for k, v in LONG_BASE.items()}}}
LONG_COUNTERFACTUALS = {
    "memit: gate: both arms' value solves converge": {"baseline.cap_hit": 0.2},
    "memit: gate: the base editor's loop gain": {"baseline.loop_gain_update": 0.4},
    "memit: gate: the base editor reaches its editing horizon": {"baseline.horizon_reached": False},
    "memit: NAS's editing horizon exceeds": {"metrics.horizon_ratio": 3.5},
    "memit: the base editor's ||W||_F grows": {"baseline.slope_late_per_100": 0.19},
    "memit: NAS keeps": {"metrics.max_weight_growth": 0.11},
    "memit: NAS has the higher edit score S where": {"metrics.score_at_base_end": 0.55},
    "memit: NAS has the lower held-out perplexity where": {"metrics.ppl_at_base_end": 30.0},
    "alphaedit: gate: both arms' value solves converge": {"metrics.alphaedit_cap_hit": 0.5},
    "alphaedit: gate: the base editor's loop gain": {"baseline.alphaedit_loop_gain_update": 0.5},
    "alphaedit: gate: the base editor reaches its editing horizon": {"baseline.alphaedit_horizon_reached": False},
    "alphaedit: NAS's editing horizon exceeds": {"metrics.alphaedit_horizon_ratio": None},
    "alphaedit: the base editor's ||W||_F grows": {"baseline.alphaedit_weight_growth": -0.01},
    "alphaedit: NAS keeps": {"metrics.alphaedit_max_weight_growth": 0.3},
    "alphaedit: NAS has the higher edit score S where": {"metrics.alphaedit_score_at_base_end": 0.5},
    "alphaedit: NAS has the lower held-out perplexity where": {"metrics.alphaedit_ppl_at_base_end": 31.0},
}


def test_every_check_of_the_long_verdict_can_fail_alone_and_the_base_editor_as_nas_fails():
    """The long run (stream to collapse) adds the horizon gate and ratio, and compares S and PPL where
    the base stream ended: the base's end-of-stream numbers as NAS's at that point fail."""
    assert audit(verdict, LONG_PASSING, LONG_COUNTERFACTUALS) == []
