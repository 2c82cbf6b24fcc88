"""NIV's verdict can fail: the baseline's numbers as NIV's, one counterfactual per check, per seed and over seeds
(the paired rule); committed records re-judge."""

import json
from pathlib import Path

import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.core.verdict import audit, breaks
from proceedings.niv.experiment import contrasts, rejudge, verdict

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


def test_committed_tiny_record_re_judges_to_its_stored_checks():
    path = Path(__file__).parents[2] / "results" / "niv" / "tiny.json"
    if not path.exists():
        pytest.skip("no committed tiny record yet")
    record = json.loads(path.read_text())
    assert verdict(record["metrics"], record["baseline"]) == record["checks"]


def test_committed_small_record_re_judges_from_its_seeds_to_its_stored_checks():
    path = Path(__file__).parents[2] / "results" / "niv" / "small.json"
    record = json.loads(path.read_text()) if path.exists() else {}
    if "contrasts" not in record.get("metrics", {}):
        pytest.skip("no committed small record made under the paired seed rule yet")
    assert rejudge(record)[0] == record["checks"]


def seed_intervals(**changes) -> dict:
    """Point intervals at PASSING's own numbers for every contrast (what equal seeds give), some replaced."""
    point = contrasts(PASSING["metrics"], PASSING["baseline"])
    return {f"metrics.contrasts.{name}": changes.get(name, (value, value)) for name, value in point.items()}


@pytest.mark.parametrize("contrast, broken", [
    ("b1_minus_b0_wght", "B1 beats B0"),
    ("train_minus_half_b0", "training-font error"),
    ("error_minus_b0_share", "x B0's (held-out"),
    ("wght_minus_b1", "overall and on wght"),
    ("two_axis_minus_addall", "NIV-addall on 2-axis"),
    ("b1_minus_niv_iou", "raster IoU"),
])
def test_over_seeds_a_comparison_holds_only_if_its_paired_seed_interval_stays_below_zero(contrast, broken):
    assert breaks(verdict, {**PASSING, "intervals": seed_intervals()}) == []
    (failing,) = breaks(verdict, {**PASSING, "intervals": seed_intervals(**{contrast: (-5.0, 0.5)})})
    assert broken in failing


@pytest.mark.parametrize("path, interval, broken", [
    ("metrics.export_roundtrip_max_units", (0.0, 1.5), "reproduce the held-out VF"),
    ("metrics.real_outline_refused", (0.0, 1.0), "refuses none of the real"),
    ("metrics.loss_drop", (0.25, 0.95), "loss falls"),
    ("metrics.fallback_share_max", (0.0, 0.06), "passes validate"),
])
def test_over_seeds_a_one_arm_number_counts_at_its_unfavourable_interval_end(path, interval, broken):
    (failing,) = breaks(verdict, {**PASSING, "intervals": seed_intervals() | {path: interval}})
    assert broken in failing


def test_over_seeds_every_seeds_bootstrap_interval_over_glyphs_must_exclude_zero():
    per_seed = {"metrics.two_axis_minus_addall_ci": {"per_seed": [[-3.0, -1.0], [-2.0, -0.4]]}}
    assert breaks(verdict, PASSING, per_seed) == []
    per_seed["metrics.two_axis_minus_addall_ci"]["per_seed"][1][1] = 0.4
    (failing,) = breaks(verdict, PASSING, per_seed)
    assert "NIV-addall on 2-axis" in failing


def several_seeds(train_errors: list[float], b0_train_errors: list[float]) -> dict:
    """A several-seed record of PASSING's numbers whose training-font errors differ per seed."""
    per_seed = [{"seed": seed, "metrics": PASSING["metrics"] | {"train_error": niv},
                 "baseline": PASSING["baseline"] | {"b0_train_error": b0}}
                for seed, (niv, b0) in enumerate(zip(train_errors, b0_train_errors))]
    return {"seeds": {"per_seed": per_seed}}


def test_the_paired_rule_follows_b0_moving_with_each_seeds_glyph_sample():
    """B0 60-70 over the seeds' samples, NIV 2 units under half of it on every seed: the far ends (33 > 0.5 x 60)
    would fail; the paired contrast (-2 on every seed) holds. The same numbers unpaired across seeds fail."""
    checks, intervals = rejudge(several_seeds([28.0, 30.5, 33.0], [60.0, 65.0, 70.0]))
    assert all(checks.values())
    assert intervals["metrics.contrasts.train_minus_half_b0"] == pytest.approx([-2.0, -2.0])
    checks, _ = rejudge(several_seeds([33.0, 30.5, 28.0], [60.0, 65.0, 70.0]))
    assert [rule for rule, holds in checks.items() if not holds] == ["gate: NIV training-font error < 0.5 x B0's"]


def test_a_several_seed_record_without_contrasts_is_refused_by_name():
    with pytest.raises(ProceedingsError, match="proceedings niv rejudge"):
        verdict(PASSING["metrics"], PASSING["baseline"], {"metrics.loss_drop": (0.5, 0.7)})
    with pytest.raises(ProceedingsError, match="not a several-seed record"):
        rejudge({"metrics": PASSING["metrics"]})


def test_small_presets_next_record_is_the_committed_rules_steps_and_fresh_seeds():
    """Round 16's rule (results/niv/r16/step_rule.py, training-font numbers only) fixed the step count for both arms
    and the seed list before any of those seeds ran; seeds 0-11 have all been run and read."""
    from proceedings.niv.experiment import CONFIGS

    rule = json.loads((Path(__file__).parents[2] / "results" / "niv" / "r16" / "step-rule.json").read_text())
    small = CONFIGS["small"]
    assert small.train.steps == rule["chosen_steps"]  # one TrainConfig: NIV and NIV-addall train the same steps
    assert len(small.record_seeds) == rule["chosen_seeds"] == len(set(small.record_seeds))
    assert min(small.record_seeds) > 11
