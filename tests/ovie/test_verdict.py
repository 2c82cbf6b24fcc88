"""OVIE's verdict can fail: the baseline's numbers as OVIE's, one counterfactual per check, and the
committed records re-judge to their stored checks."""

import json
from pathlib import Path

import pytest

from proceedings.core.verdict import audit
from proceedings.ovie.experiment import verdict

PASSING = {
    "metrics": {"identity_splat_max_diff": 0.0, "identity_visibility_covers_valid": True, "stereo_warp_psnr": 26.9,
                "stereo_copy_psnr": 12.9, "estimator_abs_rel_max": 0.10, "copy_psnr_A": 14.0, "psnr_A": 18.75,
                "psnr_B": 18.0, "ovie_minus_mv_B_ci": [0.5, 1.5], "ft_psnr_A": 20.0, "fps_ratio_min": 3.0},
    "baseline": {"psnr_A": 20.0, "psnr_B": 17.0},
}
COUNTERFACTUALS = {
    "identity-pose splat": {"metrics.identity_splat_max_diff": 1e-3},
    "motorcycle": {"metrics.stereo_warp_psnr": 16.0},
    "abs-rel": {"metrics.estimator_abs_rel_max": 0.2},
    "gate: MV(A)": {"baseline.psnr_A": 15.9},
    "gate: OVIE(A)": {"metrics.copy_psnr_A": 17.9},
    "OVIE(B) > MV(B)": {"metrics.ovie_minus_mv_B_ci": [-0.1, 1.5]},
    "OVIE(A) >= MV(A) - 1.5": {"metrics.psnr_A": 18.4},
    "fine-tuned": {"metrics.ft_psnr_A": 19.6},
    "images/s": {"metrics.fps_ratio_min": 0.8},
}


def test_every_check_of_the_verdict_can_fail_alone_and_the_baseline_as_ovie_fails():
    assert audit(verdict, PASSING, COUNTERFACTUALS) == []


def test_over_seeds_the_bootstrap_check_needs_every_seeds_interval_above_zero():
    one_seed_below = {"per_seed": [[0.5, 1.5], [-0.1, 1.4], [0.6, 1.6]]}
    checks = verdict({**PASSING["metrics"], "ovie_minus_mv_B_ci": one_seed_below}, PASSING["baseline"])
    assert [rule for rule, holds in checks.items() if not holds] == [rule for rule in checks if "OVIE(B) > MV(B)" in rule]
    assert all(verdict({**PASSING["metrics"], "ovie_minus_mv_B_ci": {"per_seed": [[0.5, 1.5], [0.1, 1.4]]}},
                       PASSING["baseline"]).values())


def test_a_splat_that_misses_a_valid_pixel_fails_the_first_gate():
    checks = verdict({**PASSING["metrics"], "identity_visibility_covers_valid": False}, PASSING["baseline"])
    assert [rule for rule, holds in checks.items() if not holds] == [next(iter(checks))]


@pytest.mark.parametrize("record", ["tiny.json", "small.json", "small/round16_pitch_law.json",
                                    "small/round16b_ablations.json", "small/round16c_ablations_seed1.json",
                                    *(f"small/r{r}_seed{s}/ovie/small.json" for r in ("19", "20_ablations") for s in (0, 1, 2))])
def test_the_committed_records_re_judge_to_their_stored_checks(record):
    path = Path(__file__).parents[2] / "results" / "ovie" / record
    if not path.exists():
        pytest.skip(f"no committed record {record} yet")
    stored = json.loads(path.read_text())
    assert verdict(stored["metrics"], stored["baseline"]) == stored["checks"]
