"""NIV's verdict can fail: the baseline's numbers as NIV's, and one counterfactual per check; committed records re-judge."""

import json
from pathlib import Path

import pytest

from proceedings.core.verdict import audit, breaks
from proceedings.niv.experiment import verdict

PASSING = {
    "metrics": {"error": 20.0, "error_wght": 18.0, "error_two_axis": 25.0, "two_axis_minus_addall_ci": [-3.0, -1.0],
                "raster_iou_wght": 0.85, "validated_share": 1.0, "fallback_share_max": 0.01, "loss_drop": 0.6,
                "train_error": 15.0, "export_roundtrip_max_units": 0.0, "real_outline_refused": 0},
    "baseline": {"error": 33.0, "error_wght": 30.0, "error_two_axis": 40.0, "raster_iou_wght": 0.7, "b0_error": 60.0,
                 "b0_error_wght": 40.0, "b0_train_error": 64.0, "addall_error_two_axis": 27.0},
}
COUNTERFACTUALS = {
    "reproduce the held-out VF": {"metrics.export_roundtrip_max_units": 3.0},
    "refuses none of the real": {"metrics.real_outline_refused": 2},
    "B1 beats B0": {"baseline.b0_error_wght": 29.0},
    "loss falls": {"metrics.loss_drop": 0.2},
    "training-font error": {"metrics.train_error": 33.0},
    "x B0's (held-out": {"baseline.b0_error": 28.0},
    "overall and on wght": {"metrics.error_wght": 31.0},
    "NIV-addall on 2-axis": {"metrics.two_axis_minus_addall_ci": [-3.0, 0.5]},
    "raster IoU": {"metrics.raster_iou_wght": 0.6},
    "passes validate": {"metrics.fallback_share_max": 0.2},
}


def test_every_check_of_the_verdict_can_fail_alone_and_the_baseline_as_niv_fails():
    assert audit(verdict, PASSING, COUNTERFACTUALS) == []


@pytest.mark.parametrize("scale", ["tiny", "small"])
def test_committed_records_re_judge_to_their_stored_checks(scale):
    path = Path(__file__).parents[2] / "results" / "niv" / f"{scale}.json"
    if not path.exists():
        pytest.skip(f"no committed {scale} record yet")
    record = json.loads(path.read_text())
    spread = (record.get("seeds") or {}).get("spread", {})
    assert verdict(record["metrics"], record["baseline"], {p: s["ci95"] for p, s in spread.items()}) == record["checks"]


@pytest.mark.parametrize("path, interval, broken", [
    ("metrics.export_roundtrip_max_units", (0.0, 1.5), "reproduce the held-out VF"),
    ("metrics.real_outline_refused", (0.0, 1.0), "refuses none of the real"),
    ("baseline.b0_error_wght", (29.0, 50.0), "B1 beats B0"),
    ("metrics.loss_drop", (0.25, 0.95), "loss falls"),
    ("metrics.train_error", (5.0, 33.0), "training-font error"),
    ("baseline.b0_error", (28.0, 90.0), "x B0's (held-out"),
    ("metrics.error_wght", (10.0, 31.0), "overall and on wght"),
    ("metrics.error_two_axis", (20.0, 28.0), "NIV-addall on 2-axis"),
    ("baseline.raster_iou_wght", (0.6, 0.9), "raster IoU"),
    ("metrics.fallback_share_max", (0.0, 0.06), "passes validate"),
])
def test_over_seeds_a_margin_counts_only_between_the_far_ends_of_the_intervals(path, interval, broken):
    section, key = path.split(".")
    point = (PASSING[section][key], PASSING[section][key])
    assert breaks(verdict, {**PASSING, "intervals": {path: point}}) == []
    (failing,) = breaks(verdict, {**PASSING, "intervals": {path: interval}})
    assert broken in failing


def test_over_seeds_every_seeds_bootstrap_interval_over_glyphs_must_exclude_zero():
    per_seed = {"metrics.two_axis_minus_addall_ci": {"per_seed": [[-3.0, -1.0], [-2.0, -0.4]]}}
    assert breaks(verdict, PASSING, per_seed) == []
    per_seed["metrics.two_axis_minus_addall_ci"]["per_seed"][1][1] = 0.4
    (failing,) = breaks(verdict, PASSING, per_seed)
    assert "NIV-addall on 2-axis" in failing
