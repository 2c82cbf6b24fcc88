"""Two-point lower bounds on the error of any algorithm (spec §2.4).

For two instances with disjoint sets of correct answers, no algorithm can be right on both with
high probability from n samples:
- any algorithm (Le Cam + Bhattacharyya): max(err0, err1) >= ⅛·BC(D0, D1)^(2n);
- any pure ε-DP algorithm (maximal coupling + group privacy; the Hamming distance of coupled
  samples is Binomial(n, τ), τ = TV(D0, D1)): max(err0, err1) >= ¼·(1 - τ(1 - e^-ε))^n,
  an exponent ≈ τ·min(1, ε) up to constants.
Both are reported in log space with their exponents per sample; the larger bound binds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.dplang.families import Instance
from proceedings.dplang.mechanisms import check_eps


@dataclass(frozen=True)
class TwoPointBound:
    n: int
    bhattacharyya: float
    total_variation: float
    log_nonprivate: float  # log of ⅛ BC^(2n)
    log_pure: float | None  # log of ¼ (1 - τ(1 - e^-ε))^n, None without ε
    nonprivate_exponent: float  # per sample
    pure_exponent: float | None

    @property
    def log_bound(self) -> float:
        """The binding (largest) lower bound on log max(err0, err1)."""
        return max(self.log_nonprivate, self.log_pure if self.log_pure is not None else -math.inf)

    @property
    def exponent(self) -> float:
        return min(self.nonprivate_exponent, self.pure_exponent if self.pure_exponent is not None else math.inf)


def aligned_masses(first: Instance, second: Instance) -> tuple[np.ndarray, np.ndarray]:
    """The two distributions' masses on a common list of atoms."""
    languages = first.collection.prefix(first.horizon or first.collection.size)
    a, b = first.distribution.atoms(languages), second.distribution.atoms(languages)
    keys = sorted(set(a.representatives) | set(b.representatives), key=repr)
    mass_a, mass_b = dict(zip(a.representatives, a.masses)), dict(zip(b.representatives, b.masses))
    return (np.array([mass_a.get(k, 0.0) for k in keys]), np.array([mass_b.get(k, 0.0) for k in keys]))


def two_point(first: Instance, second: Instance, n: int, eps: float | None = None) -> TwoPointBound:
    """Lower bounds for any algorithm (and any ε-DP one) that must solve both instances."""
    if set(first.target.indices) & set(second.target.indices):
        raise ProceedingsError("the two instances share a correct answer; a two-point bound needs disjoint targets")
    p, q = aligned_masses(first, second)
    bc = float(np.sqrt(p * q).sum())
    tv = float(0.5 * np.abs(p - q).sum())
    nonprivate_exponent = -2.0 * math.log(bc)
    log_nonprivate = math.log(1 / 8) - nonprivate_exponent * n
    if eps is None:
        return TwoPointBound(n, bc, tv, log_nonprivate, None, nonprivate_exponent, None)
    pure_exponent = -math.log1p(-tv * -math.expm1(-check_eps(eps)))
    return TwoPointBound(n, bc, tv, log_nonprivate, math.log(1 / 4) - pure_exponent * n,
                         nonprivate_exponent, pure_exponent)
