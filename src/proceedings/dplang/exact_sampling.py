"""Samplers in integer arithmetic only, for `--secure` (spec §7; Mironov, CCS 2012).

Float samplers (Gumbel-max, inverse-CDF Laplace) leak through the low bits of IEEE doubles. These
draw the same laws exactly from uniform random integers, with ε taken as the rational number its
decimal text spells (0.05 -> 1/20), after Canonne, Kamath and Steinke, "The discrete Gaussian for
differential privacy" (NeurIPS 2020), Algorithms 1-2:
- `bernoulli_exp`: a coin with P(heads) = exp(-γ) for rational γ >= 0;
- `exponential_choice`: the exponential mechanism P(i) ∝ exp(scale·v_i) on integer scores by
  rejection: a uniform candidate is kept with probability exp(-scale·(max v - v_i));
- `discrete_laplace`: P(z) ∝ exp(-ε|z|) on the integers.
`source` is anything with `randrange` (`secrets.SystemRandom()` by default; a seeded
`random.Random` in tests).
"""

from __future__ import annotations

import secrets
from fractions import Fraction
from typing import Sequence

SYSTEM = secrets.SystemRandom()


def rational(value: float) -> Fraction:
    """The rational number a float's shortest decimal text spells: 0.05 -> 1/20."""
    return Fraction(repr(float(value)))


def bernoulli(p: Fraction, source=SYSTEM) -> bool:
    return source.randrange(p.denominator) < p.numerator


def bernoulli_exp(gamma: Fraction, source=SYSTEM) -> bool:
    """A coin with P(True) = exp(-γ), γ >= 0 rational (CKS 2020, Algorithm 1)."""
    while gamma > 1:  # exp(-γ) = exp(-1)^floor(γ) · exp(-(γ - floor(γ)))
        if not bernoulli_exp(Fraction(1), source):
            return False
        gamma -= 1
    k = 1
    while bernoulli(gamma / k, source):
        k += 1
    return k % 2 == 1


def exponential_choice(scores: Sequence[int], scale: Fraction, source=SYSTEM) -> int:
    """An index i with probability ∝ exp(scale·scores[i]), for integer scores."""
    best = max(scores)
    while True:
        i = source.randrange(len(scores))
        if bernoulli_exp(scale * (best - int(scores[i])), source):
            return i


def discrete_laplace(eps: Fraction, source=SYSTEM) -> int:
    """Z with P(Z = z) ∝ exp(-ε|z|) on the integers (CKS 2020, Algorithm 2, scale 1/ε)."""
    s, t = eps.numerator, eps.denominator  # exp(-|z|·s/t)
    while True:
        u = source.randrange(t)
        if not bernoulli_exp(Fraction(u, t), source):
            continue
        v = 0
        while bernoulli_exp(Fraction(1), source):
            v += 1
        magnitude = (u + t * v) // s
        negative = bernoulli(Fraction(1, 2), source)
        if negative and magnitude == 0:
            continue
        return -magnitude if negative else magnitude
