"""Rate fitting: exponents per sample with bootstrap intervals, ratios, and Chernoff asymptotes.

The paper's rates are universal (constants depend on D), so a rate is read off an *asymptotic
window*: the slope of -log error against g(n) over the largest n measured, g(n) = n for
exponential rates, g(n) = r(n) for the sub-exponential identification regime (spec §2.5).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from proceedings.core.errors import ProceedingsError

BOOTSTRAP_DRAWS = 2000


@dataclass(frozen=True)
class RateFit:
    """-log error ≈ exponent·g(n) + const over the window; `draws` are bootstrap exponents."""

    exponent: float
    low: float  # 95% bootstrap interval
    high: float
    r2: float
    window: tuple[int, int]
    draws: np.ndarray

    def summary(self) -> dict:
        return {"exponent": self.exponent, "ci95": [self.low, self.high], "r2": self.r2, "window": list(self.window)}


def _slope(g: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    slope, intercept = np.polyfit(g, y, 1)
    return float(slope), float(intercept)


def fit_rate(ns: Sequence[int], log_err: Sequence[float], log_err_se: Sequence[float] | None = None,
             g: Callable[[np.ndarray], np.ndarray] = lambda n: n, seed: int = 0) -> RateFit:
    """Least-squares exponent of -log error against g(n), with a bootstrap 95% interval.

    Exact points: residual bootstrap (the interval measures curvature, i.e. the finite-n transient).
    Monte Carlo points: parametric bootstrap from each point's standard error on the log scale.
    """
    ns, y = np.asarray(ns, dtype=float), np.asarray(log_err, dtype=float)
    keep = np.isfinite(y)
    if keep.sum() < 3:
        raise ProceedingsError(f"need >= 3 points with a non-zero error to fit a rate, got {int(keep.sum())}")
    ns, y = ns[keep], y[keep]
    x = np.asarray(g(ns), dtype=float)
    slope, intercept = _slope(x, y)
    fitted = slope * x + intercept
    total = ((y - y.mean()) ** 2).sum()
    r2 = 1.0 - ((y - fitted) ** 2).sum() / total if total > 0 else 1.0
    rng = np.random.default_rng(seed)
    if log_err_se is None:
        noise = rng.choice(y - fitted, size=(BOOTSTRAP_DRAWS, len(y)), replace=True)
    else:
        noise = np.asarray(log_err_se, dtype=float)[keep] * rng.standard_normal((BOOTSTRAP_DRAWS, len(y)))
        fitted = y
    draws = -np.array([_slope(x, fitted + e)[0] for e in noise])
    low, high = np.percentile(draws, [2.5, 97.5])
    return RateFit(-slope, float(low), float(high), float(r2), (int(ns.min()), int(ns.max())), draws)


def exponent_ratio(fit: RateFit, reference: RateFit) -> tuple[float, float, float]:
    """(ratio, 95% low, 95% high) of two exponents, from their paired bootstrap draws."""
    ratios = fit.draws / reference.draws
    low, high = np.percentile(ratios, [2.5, 97.5])
    return fit.exponent / reference.exponent, float(low), float(high)


def chernoff_exponent(p_plus: float, p_minus: float, t_max: float = math.inf) -> float:
    """-ln min_{0 <= t <= t_max} E[e^{-tX}], X = +1 w.p. p_plus, -1 w.p. p_minus, else 0.

    With t_max = inf this is the exponent of P(W <= 0) for the walk W (the non-private rate,
    -ln(1 - (√p_+ - √p_-)²)); with t_max = ε/2 it is the exponent of E[1/(1 + e^{εW/2})], the
    exponential mechanism's rate on the same walk: linear in ε below the knee 2·t*, flat above.
    """
    t_star = 0.5 * math.log(p_plus / p_minus)
    t = min(t_star, t_max)
    return -math.log(1 - p_plus - p_minus + p_plus * math.exp(-t) + p_minus * math.exp(t))


@dataclass(frozen=True)
class PureBand:
    """The pure-DP prediction stated before measuring: min{1, ε/ε*} ≤ ratio ≤ min{1, κ·ε/ε*}.

    The exponential mechanism at scale ε/(2Δ) tilts the walk W that decides the non-private rule by
    t = ε/(2Δ); its exponent f(t) = -ln E[e^{-tX}] is concave with f(t*) = I (the non-private
    exponent, t* = ½·ln(p_+/p_-)) and f'(0) = p_+ - p_-. Concavity puts f(t)/I above the chord t/t*,
    the tangent at 0 puts it below κ·t/t* with κ = (p_+ - p_-)·t*/I: the paper's min{1, ε} factor
    with both constants computed from the sensitivity and the non-private law, nothing fitted.
    """

    eps_star: float  # 2Δ·t* = Δ·ln(p_+/p_-): the ε where the pure exponent reaches the non-private one
    kappa: float  # slope constant of the upper envelope

    @classmethod
    def of_walk(cls, p_plus: float, p_minus: float, sensitivity: float) -> "PureBand":
        t_star = 0.5 * math.log(p_plus / p_minus)
        kappa = (p_plus - p_minus) * t_star / chernoff_exponent(p_plus, p_minus)
        return cls(2 * sensitivity * t_star, kappa)

    def bounds(self, eps: float) -> tuple[float, float]:
        return min(1.0, eps / self.eps_star), min(1.0, self.kappa * eps / self.eps_star)
