"""`--secure` samplers: integer arithmetic only, and the same output laws as the float path."""

import math
import random
from fractions import Fraction

import numpy as np
import pytest

from proceedings.dplang import families
from proceedings.dplang.exact_sampling import bernoulli_exp, discrete_laplace, rational
from proceedings.dplang.identification import Identifier
from proceedings.dplang.mechanisms import (DiscreteProposeTestRelease, DiscreteTruncatedLaplace, ExponentialMechanism,
                                           SecureExponentialMechanism)
from proceedings.dplang.privacy_audit import audit, stability_level_audit

DRAWS = 6000


def within_sampling_error(counts: np.ndarray, probabilities: np.ndarray, draws: int) -> bool:
    """Every frequency within 4.5 binomial standard deviations of its probability."""
    sd = np.sqrt(probabilities * (1 - probabilities) / draws)
    return bool(np.all(np.abs(counts / draws - probabilities) <= 4.5 * sd + 1e-12))


def test_rational_reads_the_decimal_text_and_bernoulli_exp_has_the_law_exp_minus_gamma():
    assert rational(0.05) == Fraction(1, 20) and rational(2.0) == 2
    source = random.Random(0)
    for gamma in (Fraction(1, 3), Fraction(5, 2)):
        heads = sum(bernoulli_exp(gamma, source) for _ in range(DRAWS))
        assert within_sampling_error(np.array([heads]), np.array([math.exp(-gamma)]), DRAWS)


def test_discrete_laplace_has_the_two_sided_geometric_law():
    source, eps = random.Random(1), Fraction(1, 2)
    z = np.array([discrete_laplace(eps, source) for _ in range(DRAWS)])
    support = np.arange(-4, 5)
    law = np.exp(-0.5 * np.abs(support)) * math.tanh(0.25)  # P(z) = (1 - e^-ε)/(1 + e^-ε) e^-ε|z|
    assert within_sampling_error(np.array([(z == k).sum() for k in support]), law, DRAWS)


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_secure_exponential_mechanism_matches_the_float_gumbel_path(eps):
    scores = np.tile(np.array([5, 3, 3, 0]), (DRAWS, 1))
    secure = SecureExponentialMechanism(eps, source=random.Random(2))
    law = np.exp(ExponentialMechanism(eps).log_probs(scores[0], 1))[:-1]
    secure_counts = np.bincount(secure.sample(scores, 1, None), minlength=4)
    float_counts = np.bincount(ExponentialMechanism(eps).sample(scores, 1, np.random.default_rng(3)), minlength=4)
    assert within_sampling_error(secure_counts, law, DRAWS) and within_sampling_error(float_counts, law, DRAWS)


def test_secure_test_noise_and_release_law_match_the_float_path():
    noise = DiscreteTruncatedLaplace(0.5, 1e-3)
    support = np.arange(-noise.bound, noise.bound + 1)
    law = np.exp(noise.log_sf(support - 1)) - np.exp(noise.log_sf(support))  # P(Z = z)
    secure = noise.secure_sample((DRAWS,), random.Random(4))
    floating = noise.sample((DRAWS,), np.random.default_rng(5))
    for draws in (secure, floating):
        assert np.abs(draws).max() <= noise.bound
        assert within_sampling_error(np.array([(draws == z).sum() for z in support]), law, DRAWS)
    selector = DiscreteProposeTestRelease(0.5, 1e-3, secure=True, source=random.Random(6))
    scores = np.tile(np.array([30.0, 0.0]), (DRAWS, 1))  # stability 14, near T = 12: released w.p. ~0.9
    chosen = selector.sample(scores, 1, None)
    law = np.exp(selector.log_probs(scores[0], 1))[[0, 2]]  # the winner or ⊥
    assert within_sampling_error(np.array([(chosen == 0).sum(), (chosen == 2).sum()]), law, DRAWS)


@pytest.mark.parametrize("eps, delta", [(0.5, 1e-6), (0.05, 1e-9)])
def test_the_discrete_test_passes_the_exact_audits(eps, delta):
    selector = DiscreteProposeTestRelease(eps, delta)
    assert stability_level_audit(selector, eps, delta)["passed"]
    for family in ("f1", "f2"):
        assert audit(families.instance(family), Identifier(selector), 6, eps, delta).passed
