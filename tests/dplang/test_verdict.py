"""DP-lang's verdict can fail: the baseline's numbers as the method's (a mechanism with no privacy
cost), one counterfactual per check, and the issue's three laws (no privacy, 2ε, √ε) each named."""

import json
import math
from pathlib import Path

import pytest

from proceedings.core.verdict import audit, breaks
from proceedings.dplang.bounds import two_point
from proceedings.dplang.experiment import verdict
from proceedings.dplang.rates import PureBand, chernoff_exponent
from proceedings.dplang.sweep import family

EPS = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 4.0)
F1 = (0.35, 0.25)
F3 = (0.8 / 229, 0.4 / 229)  # F3's competitor walk at k(51200) = 227
G2 = (0.25, 0.06)  # G2's generation walk N_3 - N_1
F1_NP, F3_NP, G2_NP = chernoff_exponent(*F1), 0.071, chernoff_exponent(*G2)  # F3: exponent per r(n)
F1_BAND, F3_BAND = PureBand.of_walk(*F1, sensitivity=1), PureBand.of_walk(*F3, sensitivity=1)
G2_BAND = PureBand.of_walk(*G2, sensitivity=1)


def law(walk, np_exponent, scale=lambda eps: eps / 2):
    """Exponents of the exponential mechanism on a walk, as multiples of the non-private one."""
    return {f"{e:g}": np_exponent * chernoff_exponent(*walk, scale(e)) / chernoff_exponent(*walk) for e in EPS}


def sqrt_law(band, np_exponent):
    return {f"{e:g}": np_exponent * min(1.0, math.sqrt(e / band.eps_star)) for e in EPS}


def flat(value):
    return {f"{e:g}": value for e in EPS}


F1_PURE = law(F1, F1_NP)
BOUND = {f"{e:g}": two_point(family("f1"), family("f1-mirror"), 1000, e).exponent for e in EPS}
F3_APPROX = {f"{e:g}": F3_NP * r for e, r in zip(EPS, (0.05, 0.1, 0.3, 0.45, 0.8, 0.9, 0.95))}
METRICS = {
    "f1_pure_exponent": F1_PURE, "f1_approx_exponent": {"1e-06": flat(0.99 * F1_NP)},
    "g1_pure_exponent": F1_PURE, "g1_approx_exponent": {"1e-06": flat(0.99 * F1_NP)},
    "f3_pure_exponent_per_r": law(F3, F3_NP), "f3_approx_exponent_per_r": F3_APPROX,
    "f3_approx_ratio_previous_window": {e: 0.8 * v / F3_NP for e, v in F3_APPROX.items()},
    "f2_approx_exponent": flat(0.29), "f4_approx_exponent": flat(0.53),
    "f1_pure_worst_exponent": F1_PURE, "pure_lower_bound_exponent": BOUND, "f1_sa_exponent": flat(0.26 * F1_NP),
    "np_exponent_f1_spec_window": 0.00859, "chernoff_exponent_f1": F1_NP,
    "g1_min_exponent_low": 0.002, "g1_min_r2": 0.999,
    "f3_window_ratio": {"sqrt": 1.02, "cbrt": 0.93, "log": 0.95}, "f3_sqrt_against_cbrt_window_ratio": 0.72,
    "max_log_error_rise": -1e-6, "pure_error_below_np": -0.3, "monte_carlo_disagreements": 0,
    "monte_carlo_cross_checks": 12, "private_audits_failed": 0, "private_audits": 40,
    "broken_audits_passed": 0, "broken_audits": 40,
    "class_audits_failed": 0, "class_audits": 90, "class_audit_settings_covered": 14, "class_audit_settings": 14,
    "class_min_release_probability": 0.54, "class_broken_passed": 0, "class_broken": 84,
    "g2_pure_exponent": law(G2, G2_NP), "g2_approx_exponent": {"1e-06": flat(0.99 * G2_NP)},
    "g2_np_window_ratio": 1.01, "g2_identification_window_ratio": 0.4,
}
BASELINE = {
    "name": "non-private", "np_exponent_f1": F1_NP, "np_exponent_f1_low": 0.0084, "np_exponent_g1": F1_NP,
    "np_exponent_g1_low": 0.0084, "np_exponent_f2": 0.29, "np_exponent_f4": 0.53,
    "f3_np_exponent_per_r": {"sqrt": F3_NP, "cbrt": 0.07, "log": 0.069},
    "f3_np_exponent_per_r_low": {"sqrt": 0.069, "cbrt": 0.068, "log": 0.068},
    "f1_pure_exponent": flat(F1_NP), "f1_approx_exponent": {"1e-06": flat(F1_NP)},
    "g1_pure_exponent": flat(F1_NP), "g1_approx_exponent": {"1e-06": flat(F1_NP)},
    "f3_pure_exponent_per_r": flat(F3_NP), "f3_approx_exponent_per_r": flat(F3_NP),
    "f2_approx_exponent": flat(0.29), "f4_approx_exponent": flat(0.53), "f1_pure_worst_exponent": flat(F1_NP),
    "f1_sa_exponent": flat(F1_NP), "pure_band_f1": {"eps_star": F1_BAND.eps_star, "kappa": F1_BAND.kappa},
    "pure_band_f3": {"eps_star": F3_BAND.eps_star, "kappa": F3_BAND.kappa},
    "np_exponent_g2": G2_NP, "np_exponent_g2_low": 0.066, "g2_pure_exponent": flat(G2_NP),
    "g2_approx_exponent": {"1e-06": flat(G2_NP)}, "pure_band_g2": {"eps_star": G2_BAND.eps_star, "kappa": G2_BAND.kappa},
}
PASSING = {"metrics": METRICS, "baseline": BASELINE}
COUNTERFACTUALS = {
    "gate: the non-private arms learn": {"baseline.np_exponent_f1_low": -1e-4},
    "gate: every exact error curve": {"metrics.max_log_error_rise": 0.5},
    "calculators: NP-ID exponent": {"metrics.np_exponent_f1_spec_window": 0.0095},
    "calculators: exact errors agree": {"metrics.monte_carlo_disagreements": 1},
    "privacy: every private mechanism": {"metrics.private_audits_failed": 1},
    "privacy: the exact audit fails": {"metrics.broken_audits_passed": 1},
    "privacy, release branch": {"metrics.class_min_release_probability": 0.3},
    "pure DP, F1": {"metrics.f1_pure_exponent": sqrt_law(F1_BAND, F1_NP)},
    "pure DP, G1": {"metrics.g1_pure_exponent": sqrt_law(F1_BAND, F1_NP)},
    "pure DP, F3": {"metrics.f3_pure_exponent_per_r": sqrt_law(F3_BAND, F3_NP)},
    "no achieved exponent exceeds": {"metrics.f1_pure_worst_exponent": flat(F1_NP)},
    "tight up to a constant": {"metrics.f1_pure_worst_exponent": {**F1_PURE, "0.05": BOUND["0.05"] / 5}},
    "approx DP, F1": {"metrics.f1_approx_exponent": {"1e-06": {e: F1_NP * min(1, float(e)) for e in flat(0)}}},
    "approx DP, G1": {"metrics.g1_approx_exponent": {"1e-06": {**flat(F1_NP), "0.1": 0.8 * F1_NP}}},
    "approx DP, F2/F4": {"metrics.f4_approx_exponent": flat(0.4)},
    "subsample-and-aggregate": {"metrics.f1_sa_exponent": {e: F1_NP * min(0.26, float(e)) for e in flat(0)}},
    "approx DP, F3": {"metrics.f3_approx_ratio_previous_window": {e: 1.2 * v / F3_NP for e, v in F3_APPROX.items()}},
    "the F3 exponent per r(n) of the top window": {"metrics.f3_window_ratio": {"sqrt": 0.7, "cbrt": 0.93, "log": 0.95}},
    "tell sqrt(n) from n^(2/3)": {"metrics.f3_sqrt_against_cbrt_window_ratio": 0.95},
    "generation decays exponentially": {"metrics.g1_min_r2": 0.9},
    "countable generation (G2)": {"metrics.g2_np_window_ratio": 0.6},
    "pure DP, G2": {"metrics.g2_pure_exponent": sqrt_law(G2_BAND, G2_NP)},
    "approx DP, G2": {"metrics.g2_approx_exponent": {"1e-06": {**flat(G2_NP), "0.05": 0.5 * G2_NP}}},
}


def test_every_check_of_the_verdict_can_fail_alone_and_the_baseline_as_the_method_fails():
    assert audit(verdict, PASSING, COUNTERFACTUALS) == []


@pytest.mark.parametrize("key, walk, np_exponent, band, check", [
    ("f1_pure_exponent", F1, F1_NP, F1_BAND, "pure DP, F1"),
    ("g1_pure_exponent", F1, F1_NP, F1_BAND, "pure DP, G1"),
    ("f3_pure_exponent_per_r", F3, F3_NP, F3_BAND, "pure DP, F3"),
    ("g2_pure_exponent", G2, G2_NP, G2_BAND, "pure DP, G2"),
])
def test_no_privacy_a_2eps_mechanism_and_a_sqrt_eps_law_each_fail_the_pure_band(key, walk, np_exponent, band, check):
    laws = {"no privacy": flat(np_exponent), "2eps": law(walk, np_exponent, scale=lambda eps: eps),
            "sqrt(eps)": sqrt_law(band, np_exponent)}
    for name, exponents in laws.items():
        failing = breaks(verdict, PASSING, {f"metrics.{key}": exponents})
        assert any(check in rule for rule in failing), (name, failing)
    assert not any(check in rule for rule in breaks(verdict, PASSING, {f"metrics.{key}": law(walk, np_exponent,
                                                                            scale=lambda eps: eps / 2.2)}))


@pytest.mark.parametrize("change", [{"metrics.class_audits_failed": 1}, {"metrics.class_broken_passed": 1},
                                    {"metrics.class_audit_settings_covered": 13}])
def test_the_release_branch_check_fails_on_a_leak_a_passing_broken_test_or_an_unaudited_setting(change):
    assert any("privacy, release branch" in rule for rule in breaks(verdict, PASSING, change))


def test_countable_generation_fails_when_identification_is_as_fast_as_generation():
    failing = breaks(verdict, PASSING, {"metrics.g2_identification_window_ratio": 0.97})
    assert any("countable generation (G2)" in rule for rule in failing)


def test_a_mechanism_without_privacy_also_beats_the_two_point_lower_bound():
    failing = breaks(verdict, PASSING, {"metrics.f1_pure_worst_exponent": flat(F1_NP)})
    assert any("no achieved exponent exceeds" in rule for rule in failing)


RECORDS = sorted((Path(__file__).parents[2] / "results" / "dplang").glob("*.json"))


@pytest.mark.parametrize("path", RECORDS, ids=[p.stem for p in RECORDS])
def test_the_committed_records_re_judge_to_their_stored_checks(path):
    record = json.loads(path.read_text())
    assert verdict(record["metrics"], record["baseline"]) == record["checks"]
