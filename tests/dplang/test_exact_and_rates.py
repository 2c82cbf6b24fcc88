"""Exact calculators agree with enumeration and Monte Carlo; rates match the Chernoff exponents."""

import math
from dataclasses import replace

import numpy as np
import pytest
from scipy.special import gammaln, logsumexp

from proceedings.core.errors import ProceedingsError
from proceedings.dplang import families
from proceedings.dplang.bounds import two_point
from proceedings.dplang.evaluate import error_curve, error_point
from proceedings.dplang.generation import approx_generator, np_generator, pure_generator
from proceedings.dplang.identification import approx_identifier, np_identifier, pure_identifier
from proceedings.dplang.laws import step_walk_law
from proceedings.dplang.rates import PureBand, chernoff_exponent, fit_rate
from proceedings.dplang.sweep import PREFIX_SCHEDULES

ALGORITHMS = {
    "identification": [np_identifier(), pure_identifier(0.7), approx_identifier(2.0, 1e-2)],
    "generation": [np_generator(), pure_generator(0.7), approx_generator(2.0, 1e-2)],
}


def test_walk_law_equals_the_brute_force_trinomial():
    n, p_plus, p_minus = 25, 0.35, 0.25
    values, log_pmf = step_walk_law(n, p_plus, p_minus)
    brute = np.full(2 * n + 1, -np.inf)
    for a in range(n + 1):
        for c in range(n + 1 - a):
            term = (gammaln(n + 1) - gammaln(a + 1) - gammaln(c + 1) - gammaln(n - a - c + 1)
                    + a * math.log(p_plus) + c * math.log(p_minus) + (n - a - c) * math.log(0.4))
            brute[a - c + n] = np.logaddexp(brute[a - c + n], term)
    assert np.allclose(log_pmf, brute, atol=1e-10)
    assert abs(logsumexp(step_walk_law(100_000, p_plus, p_minus)[1])) < 1e-8  # no drift at large n


@pytest.mark.parametrize("name, task", [("f1", "identification"), ("g1", "identification"), ("g1", "generation"),
                                        ("f2", "identification"), ("f4", "identification")])
def test_every_reduction_equals_full_multinomial_enumeration(name, task):
    instance = families.instance(name)
    for learner in ALGORITHMS[task]:
        for n in (9, 31):
            reduced = error_point(instance, learner, n, "reduced").log_err
            enumerated = error_point(instance, learner, n, "enumerate").log_err
            assert reduced == pytest.approx(enumerated, abs=1e-9), (name, learner.selector.name, n)


@pytest.mark.parametrize("name, learner, n", [
    ("f1", pure_identifier(0.5), 120), ("f2", np_identifier(), 40), ("g1", approx_generator(2.0, 1e-2), 150),
    ("f4", pure_generator(0.5), 30),
])
def test_exact_error_lies_in_the_monte_carlo_interval(name, learner, n):
    instance = families.instance(name)
    exact = error_point(instance, learner, n)
    mc = error_point(instance, learner, n, "mc", trials=3000, seed=1)
    assert exact.method in ("reduced", "enumerate") and mc.method == "mc"
    assert mc.log_low <= exact.log_err <= mc.log_high


@pytest.mark.parametrize("learner", [np_identifier(), pure_identifier(1.0), approx_identifier(2.0, 1e-3)],
                         ids=["np", "pure", "approx"])
def test_countable_sandwich_brackets_the_monte_carlo_estimate(learner):
    instance = families.instance("f3")
    exact = error_point(instance, learner, 120)
    mc = error_point(instance, learner, 120, "mc", trials=3000, seed=2)
    assert exact.method == "sandwich" and exact.log_low <= exact.log_high
    assert mc.log_low <= exact.log_high and exact.log_low <= mc.log_high
    assert 0.01 < math.exp(exact.log_high) and math.exp(exact.log_low) < 0.99  # neither trivial
    plan = learner.plan(instance.collection, 120)
    assert plan.sensitivity == 1  # the sandwich assumes no competitor contains another


G2_LEARNERS = [np_generator(prefix=PREFIX_SCHEDULES["log"]), pure_generator(0.5, prefix=PREFIX_SCHEDULES["log"]),
               approx_generator(4.0, 1e-2, prefix=PREFIX_SCHEDULES["log"])]


@pytest.mark.parametrize("learner", G2_LEARNERS, ids=["np", "pure", "approx"])
def test_countable_generation_bounds_bracket_full_enumeration_and_monte_carlo(learner):
    instance = families.instance("g2")
    for n in (14, 21):  # k(n) = 3 and 4 languages: 5 and 7 cells with mass
        bounds = error_point(instance, learner, n)
        exact = error_point(instance, learner, n, "enumerate").log_err
        assert bounds.method == "sandwich" and bounds.log_low <= exact + 1e-9 and exact <= bounds.log_high + 1e-9
    bounds, mc = error_point(instance, learner, 30), error_point(instance, learner, 30, "mc", trials=3000, seed=3)
    assert mc.log_low <= bounds.log_high and bounds.log_low <= mc.log_high
    assert 0.001 < math.exp(bounds.log_high) and math.exp(bounds.log_low) < 0.99  # neither trivial


def test_countable_generation_is_exponential_where_identification_is_not():
    """G2: per sample, generation's exponent settles (exp(-Θ(n))); identification's keeps falling."""
    instance = families.instance("g2")
    generation = error_curve(instance, np_generator(prefix=PREFIX_SCHEDULES["log"]), [1000, 2000, 4000, 8000])
    identification = error_curve(instance, np_identifier(), [1000, 2000, 4000, 8000])
    per_n = lambda curve: [(a.log_low - b.log_low) / (b.n - a.n) for a, b in zip(curve, curve[1:])]  # noqa: E731
    walk = chernoff_exponent(*instance.competitors(instance.rival))  # W = N_3 - N_1, the non-private rate
    assert all(abs(rate / walk - 1) < 0.1 for rate in per_n(generation))
    assert per_n(identification)[-1] < 0.5 * per_n(identification)[0]


def test_the_generation_sandwich_refuses_a_menu_without_its_structure():
    with pytest.raises(ProceedingsError, match="disjoint|structure"):
        error_point(replace(families.instance("g2"), rival=2), np_generator(prefix=PREFIX_SCHEDULES["log"]), 50)


def test_errors_decrease_in_n_pure_costs_more_and_nothing_underflows():
    instance = families.instance("f1")
    ns = [100, 400, 1600, 6400, 100_000]
    np_curve = [p.log_err for p in error_curve(instance, np_identifier(), ns)]
    pure_curve = [p.log_err for p in error_curve(instance, pure_identifier(0.2), ns)]
    assert all(b < a for a, b in zip(np_curve, np_curve[1:]))
    assert all(p >= q for p, q in zip(pure_curve, np_curve))
    assert math.isfinite(np_curve[-1]) and np_curve[-1] < -800  # e^-843, stored in log space


def test_nonprivate_exponent_matches_chernoff_and_pure_ratio_has_the_knee():
    """Spec §8.3-8.4 on F1 over n in [800, 6400]."""
    instance, ns = families.instance("f1"), [800, 1600, 3200, 6400]

    def exponent(learner):
        curve = error_curve(instance, learner, ns)
        return fit_rate(ns, [p.log_err for p in curve]).exponent

    base = exponent(np_identifier())
    assert base == pytest.approx(chernoff_exponent(0.35, 0.25), rel=0.05)
    assert 0.3 <= exponent(pure_identifier(0.1)) / base <= 0.7
    assert exponent(pure_identifier(1.0)) / base >= 0.95
    assert exponent(approx_identifier(0.5, 1e-6)) / base >= 0.9


def test_lower_bounds_never_exceed_achieved_errors():
    f1, mirror = families.two_language(), families.two_language(0.25, 0.30, 0.35)
    for n in (200, 800, 3200):
        for learner, eps in ((np_identifier(), None), (pure_identifier(0.1), 0.1), (pure_identifier(1.0), 1.0)):
            worst = max(error_point(f1, learner, n).log_err, error_point(mirror, learner, n).log_err)
            assert two_point(f1, mirror, n, eps).log_bound <= worst
    with pytest.raises(ProceedingsError, match="disjoint"):
        two_point(f1, f1, 100)


def test_rate_fit_recovers_a_known_exponent():
    ns = np.array([1000, 2000, 4000, 8000])
    fit = fit_rate(ns, -0.01 * ns - 0.5 * np.log(ns))  # exponential rate with a polynomial prefactor
    assert fit.exponent == pytest.approx(0.01, rel=0.1) and fit.low <= fit.exponent <= fit.high
    assert fit.r2 > 0.999
    with pytest.raises(ProceedingsError, match="3 points"):
        fit_rate([1, 2], [-1.0, -2.0])


def test_exact_enumeration_refuses_large_instances_and_suggests_monte_carlo():
    with pytest.raises(ProceedingsError, match="--method mc"):
        error_point(families.instance("f1"), np_identifier(), 5000, "enumerate")


def test_monte_carlo_is_reproducible_bit_for_bit():
    instance = families.instance("g1")
    first = error_point(instance, pure_generator(0.3), 80, "mc", trials=500, seed=7)
    second = error_point(instance, pure_generator(0.3), 80, "mc", trials=500, seed=7)
    assert (first.log_err, first.log_low, first.log_high) == (second.log_err, second.log_low, second.log_high)
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    sample = instance.distribution.sample(60, np.random.default_rng(4))
    assert (approx_generator(3.0, 1e-3).run(sample, instance.collection, rng_a)
            == approx_generator(3.0, 1e-3).run(sample, instance.collection, rng_b))


def test_the_closed_form_pure_band_brackets_the_exact_mechanism_exponent_and_excludes_a_2eps_one():
    band = PureBand.of_walk(0.35, 0.25, sensitivity=1)
    assert band.eps_star == pytest.approx(math.log(0.35 / 0.25))  # 2Δ·t*, t* = ½ ln(p+/p-)
    for eps in (0.01, 0.05, 0.1, 0.2, 0.3, 1.0):
        low, high = band.bounds(eps)
        ratio = chernoff_exponent(0.35, 0.25, eps / 2) / chernoff_exponent(0.35, 0.25)
        assert low - 1e-12 <= ratio <= high + 1e-12
    low, high = band.bounds(0.05)
    assert chernoff_exponent(0.35, 0.25, 0.05) / chernoff_exponent(0.35, 0.25) > high  # run at 2ε: outside


def test_subsample_and_aggregate_exact_error_matches_the_mechanism_run_end_to_end():
    from proceedings.dplang.montecarlo import clopper_pearson
    from proceedings.dplang.subsample_aggregate import SubsampleAggregate

    instance = families.instance("f1")
    mechanism = SubsampleAggregate(np_identifier(), 2.0, 1e-3)
    assert mechanism.chunks == 40  # 8⌈A⌉, A = 4.03
    rng = np.random.default_rng(5)
    samples = instance.distribution.sample((1500, 200), rng)
    failures = int((mechanism.choose_many(samples, instance.collection, rng) != 0).sum())
    low, high = clopper_pearson(failures, 1500, confidence=0.999)
    assert low <= math.exp(mechanism.log_error(instance, 200)) <= high
    assert mechanism.run(instance.distribution.sample(4000, rng), instance.collection, rng) == 1  # L1 = T(D)
