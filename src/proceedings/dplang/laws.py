"""Exact log-laws of the integer statistics that decide the scores (spec §2.5).

- `binomial_law`: Y = number of samples in one cell.
- `step_walk_law`: W = (samples in cell +) - (samples in cell -), the difference of two multinomial
  cells: a walk of n i.i.d. steps in {-1, 0, +1}. Its pmf is the coefficient list of
  (p_- + p_0 z + p_+ z^2)^n, computed by the three-term recurrence that the generating function
  satisfies, (j+1) p_- a_{j+1} = (n-j) p_0 a_j + (2n-j+1) p_+ a_{j-1}: every term is positive for
  j <= n, so the recurrence is exact to rounding with no cancellation. The upper half uses the
  mirrored polynomial. O(n) per law, in log space (errors of e^-2000 are represented, not 0).
  The spec suggested FFT convolution; FFT loses tails below 1e-16 of the peak, this does not.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy.stats import binom


@functools.lru_cache(maxsize=8)
def binomial_law(n: int, p: float) -> tuple[np.ndarray, np.ndarray]:
    """(values 0..n, log P(Bin(n, p) = value))."""
    values = np.arange(n + 1)
    with np.errstate(divide="ignore"):
        return _frozen(values, binom.logpmf(values, n, p))


def _lower_half_log_coefficients(n: int, low: float, mid: float, high: float) -> np.ndarray:
    """log a_j for j = 0..n of (low + mid z + high z^2)^n, all three masses > 0."""
    ratios = [0.0] * n  # r_j = a_{j+1} / a_j
    previous = math.inf  # a_{-1} = 0, i.e. r_{-1} = inf
    for j in range(n):
        r = (mid * (n - j) + high * (2 * n - j + 1) / previous) / (low * (j + 1))
        ratios[j] = r
        previous = r
    return n * math.log(low) + np.concatenate([[0.0], np.cumsum(np.log(ratios))])


@functools.lru_cache(maxsize=1024)  # shared by every arm of a sweep: F3 needs ~750 competitor walks
def step_walk_law(n: int, p_plus: float, p_minus: float) -> tuple[np.ndarray, np.ndarray]:
    """(values -n..n, log P(W = value)) for W = sum of n steps: +1 w.p. p_plus, -1 w.p. p_minus."""
    p_zero = 1.0 - p_plus - p_minus
    values = np.arange(-n, n + 1)
    if min(p_plus, p_minus) <= 0 or p_zero <= 1e-15:
        return _frozen(values, _degenerate_walk(n, p_plus, p_minus, max(p_zero, 0.0), values))
    lower = _lower_half_log_coefficients(n, p_minus, p_zero, p_plus)  # values -n..0
    upper = _lower_half_log_coefficients(n, p_plus, p_zero, p_minus)[::-1]  # values 0..n
    return _frozen(values, np.concatenate([lower[:-1], [0.5 * (lower[-1] + upper[0])], upper[1:]]))


def _frozen(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """Cached laws are shared: make them read-only."""
    for array in arrays:
        array.flags.writeable = False
    return arrays


def _degenerate_walk(n, p_plus, p_minus, p_zero, values) -> np.ndarray:
    """A walk with a missing step type is an affine image of a binomial."""
    logp = np.full(values.shape, -np.inf)
    with np.errstate(divide="ignore"):
        if p_minus <= 0:  # W = Bin(n, p_plus)
            logp[n:] = binom.logpmf(np.arange(n + 1), n, p_plus)
        elif p_plus <= 0:  # W = -Bin(n, p_minus)
            logp[: n + 1] = binom.logpmf(np.arange(n + 1), n, p_minus)[::-1]
        else:  # no zero steps: W = 2 Bin(n, q) - n
            k = np.arange(n + 1)
            logp[2 * k] = binom.logpmf(k, n, p_plus / (p_plus + p_minus))
    return logp
