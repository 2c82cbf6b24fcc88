"""Scores have the sensitivities the mechanisms assume, and privacy is audited exactly."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from proceedings.dplang import families
from proceedings.dplang.generation import approx_generator, np_generator, pure_generator
from proceedings.dplang.identification import Identifier, approx_identifier, np_identifier, pure_identifier
from proceedings.dplang.mechanisms import ExponentialMechanism, ProposeTestRelease, TruncatedLaplace
from proceedings.dplang.privacy_audit import (NoiselessTest, OverspentExponential, OverspentTest, audit, class_audit,
                                              privacy_losses, stability_level_audit, universe_cells)
from proceedings.dplang.scores import CellCounts

EPS, DELTA = 0.5, 1e-3
FAMILIES = ["f1", "f2", "f4", "g1"]


def _neighbours(data, n):
    """A random dataset of size n over the universe's cells and one random single replacement."""
    instance = families.instance(data.draw(st.sampled_from(FAMILIES)))
    learner = data.draw(st.sampled_from([pure_identifier(EPS), approx_identifier(EPS, DELTA),
                                         pure_generator(EPS), approx_generator(EPS, DELTA)]))
    cells = universe_cells(instance, learner, n)
    counts = np.array(data.draw(st.lists(st.integers(0, n), min_size=len(cells), max_size=len(cells))))
    counts[0] += max(0, n - counts.sum())
    while counts.sum() > n:
        counts[np.argmax(counts)] -= 1
    source = data.draw(st.sampled_from(np.flatnonzero(counts).tolist()))
    target = data.draw(st.sampled_from([c for c in range(len(cells)) if c != source]))
    moved = counts.copy()
    moved[source] -= 1
    moved[target] += 1
    plan = learner.plan(instance.collection, n)
    return learner, plan, CellCounts(cells, np.stack([counts, moved]), n)


@settings(max_examples=80, deadline=None)
@given(st.data(), st.integers(1, 300))
def test_one_replacement_moves_each_score_by_at_most_its_sensitivity(data, n):
    learner, plan, pair = _neighbours(data, n)
    scores = plan.scores(pair)
    assert np.abs(scores[0] - scores[1]).max() <= plan.sensitivity


@settings(max_examples=80, deadline=None)
@given(st.data(), st.integers(1, 300))
def test_random_neighbours_respect_the_privacy_bound(data, n):
    learner, plan, pair = _neighbours(data, n)
    log_p = learner.log_output_probs(plan, pair)
    for a, b in ((0, 1), (1, 0)):
        loss, hockey = privacy_losses(log_p[a], log_p[b], EPS)
        if learner.selector.name == "pure":
            assert loss <= EPS + 1e-9
        else:
            assert hockey <= DELTA * (1 + 1e-9)


@pytest.mark.parametrize("family", FAMILIES)
def test_exhaustive_audits_pass_for_every_private_mechanism(family):
    instance = families.instance(family)
    for learner, delta in ((pure_identifier(EPS), 0.0), (approx_identifier(EPS, DELTA), DELTA),
                           (pure_generator(EPS), 0.0), (approx_generator(EPS, DELTA), DELTA)):
        result = audit(instance, learner, 7, EPS, delta)
        assert result.passed, result.summary()
        assert result.max_hockey_stick <= delta * (1 + 1e-9)


@pytest.mark.parametrize("family", FAMILIES)
def test_the_audit_fails_deliberately_non_private_variants(family):
    instance = families.instance(family)
    noiseless = audit(instance, Identifier(NoiselessTest(EPS, DELTA)), 7, EPS, DELTA)
    assert not noiseless.passed and noiseless.max_hockey_stick > 0.5
    assert not audit(instance, np_identifier(), 7, EPS).passed
    # on F2 the first menu item L1 lies inside every language: NP-GEN's answer never depends on the data
    assert audit(instance, np_generator(), 7, EPS).passed == (family == "f2")


SETTINGS = [(0.5, 1e-6), (2.0, 1e-9)]  # two (ε, δ) of the small grid


@pytest.mark.parametrize("family", FAMILIES + ["f3"])
@pytest.mark.parametrize("eps, delta", SETTINGS)
def test_2eps_and_1_3eps_variants_fail_on_every_family_where_they_are_not_private(family, eps, delta):
    instance, n = families.instance(family), 6
    assert not audit(instance, Identifier(OverspentExponential(eps, factor=2.0)), n, eps).passed
    overspent = audit(instance, Identifier(OverspentExponential(eps, factor=1.3)), n, eps)
    # F2's nested chain moves score differences by at most 3 < 2Δ = 4: 1.3ε loses <= 0.975ε there, private
    assert overspent.passed == (family == "f2") and (overspent.score_range == 3) == (family == "f2")
    for factor in (2.0, 1.3):
        test = OverspentTest(eps, delta, factor=factor)
        on_datasets = audit(instance, Identifier(test), n, eps, delta).passed
        assert not (on_datasets and stability_level_audit(test, eps, delta)["passed"])
    assert audit(instance, approx_identifier(eps, delta), n, eps, delta).passed


@pytest.mark.parametrize("family", FAMILIES)
def test_the_class_audit_finds_exactly_what_enumerating_every_dataset_finds(family):
    """One representative per class of datasets with equal law keys covers every neighbouring pair."""
    instance = families.instance(family)
    for learner, delta in ((pure_identifier(EPS), 0.0), (approx_identifier(EPS, DELTA), DELTA),
                           (pure_generator(EPS), 0.0), (approx_generator(EPS, DELTA), DELTA),
                           (Identifier(OverspentExponential(EPS, factor=2.0)), 0.0),
                           (Identifier(OverspentTest(EPS, DELTA, factor=1.3)), DELTA)):
        full, classes = audit(instance, learner, 6, EPS, delta), class_audit(instance, learner, 6, EPS, delta)
        assert classes.passed == full.passed and classes.datasets <= full.datasets
        assert classes.max_hockey_stick == pytest.approx(full.max_hockey_stick, abs=1e-15)
        assert classes.max_privacy_loss == pytest.approx(full.max_privacy_loss, abs=1e-12)
        assert classes.score_range == full.score_range


@pytest.mark.parametrize("family", ["f1", "g1", "f2"])
@pytest.mark.parametrize("eps, delta", SETTINGS)
def test_class_audits_at_n_2_delta_a_exercise_the_release_branch_and_fail_broken_tests(family, eps, delta):
    instance, bound = families.instance(family), math.ceil(TruncatedLaplace(eps, delta).bound)
    learner = approx_identifier(eps, delta)
    n = 2 * learner.plan(instance.collection, 2).sensitivity * (bound + 2)
    result = class_audit(instance, learner, n, eps, delta)
    assert result.passed and result.max_release_probability > 0.5
    assert result.max_hockey_stick == pytest.approx(delta, rel=1e-6)  # tight, as at the stability levels
    for broken in (OverspentTest(eps, delta, factor=2.0), OverspentTest(eps, delta, factor=1.3),
                   NoiselessTest(eps, delta)):
        assert not class_audit(instance, Identifier(broken), n, eps, delta).passed


@pytest.mark.parametrize("eps, delta", SETTINGS + [(0.05, 1e-9)])
def test_the_stability_level_audit_exercises_the_release_branch_and_passes_only_the_real_test(eps, delta):
    real = stability_level_audit(ProposeTestRelease(eps, delta), eps, delta)
    assert real["passed"] and real["max_release_probability"] == pytest.approx(1.0)
    assert real["levels"] > 2 * real["bound_A"]
    for broken in (OverspentTest(eps, delta, factor=2.0), OverspentTest(eps, delta, factor=1.3),
                   NoiselessTest(eps, delta)):
        assert not stability_level_audit(broken, eps, delta)["passed"]


def test_audit_catches_the_sensitivity_bug_only_where_inclusions_exist():
    """exp(eps*v/2) is right for counts (F1) but leaks when the excess penalty doubles the sensitivity (F2)."""

    class CountsOnly(ExponentialMechanism):
        def scale(self, sensitivity):
            return self.eps / 2

    assert audit(families.instance("f1"), Identifier(CountsOnly(EPS)), 8, EPS).passed
    assert not audit(families.instance("f2"), Identifier(CountsOnly(EPS)), 8, EPS).passed


def test_truncated_laplace_puts_exactly_delta_on_the_last_unit_and_samples_its_law():
    noise = TruncatedLaplace(0.3, 1e-5)
    a = noise.bound
    assert math.exp(noise.log_sf(a - 1)) == pytest.approx(1e-5, rel=1e-9)
    assert noise.log_sf(a) == -math.inf and noise.log_cdf(-a) == -math.inf
    z = noise.sample(200_000, np.random.default_rng(3))
    assert z.min() >= -a and z.max() <= a
    for x in (-5.0, 0.0, 2.5):
        assert (z <= x).mean() == pytest.approx(math.exp(noise.log_cdf(x)), abs=0.004)
