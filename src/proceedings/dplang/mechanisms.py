"""Selection mechanisms: non-private argmax, pure ε-DP exponential mechanism, (ε, δ)-DP
propose-test-release with truncated Laplace noise (spec §2.2).

A selector picks one of M candidates from a score vector whose global sensitivity (largest change
of any score when one sample is replaced) is `sensitivity`. Each selector gives its exact output
law `log_probs` (column M is ⊥, "no answer") — used by the exact error calculators and the privacy
audits — and draws from that same law in `sample`. Ties go to the first candidate.

Floating-point caveat (Mironov, CCS 2012): samplers built on IEEE doubles can leak through the
low-order bits of noise. The simulations use them (they study rates); `--secure` uses
SecureExponentialMechanism and DiscreteProposeTestRelease, drawn in integer arithmetic
(exact_sampling.py).
"""

from __future__ import annotations

import functools
import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import numpy as np
from scipy.special import log_softmax, logsumexp

from proceedings.core.errors import ProceedingsError
from proceedings.dplang.exact_sampling import SYSTEM, discrete_laplace, exponential_choice, rational


def check_eps(eps: float) -> float:
    if not (isinstance(eps, (int, float)) and math.isfinite(eps) and eps > 0):
        raise ProceedingsError(f"privacy parameter eps must be a finite number > 0, got {eps!r}")
    return float(eps)


def check_delta(delta: float, allow_zero: bool = False) -> float:
    low_ok = delta >= 0 if allow_zero else delta > 0
    if not (isinstance(delta, (int, float)) and low_ok and delta < 1):
        interval = "[0, 1)" if allow_zero else "(0, 1) (use the pure mechanism for delta = 0)"
        raise ProceedingsError(f"privacy parameter delta must lie in {interval}, got {delta!r}")
    return float(delta)


def first_argmax(scores: np.ndarray) -> np.ndarray:
    """Index of the largest score along the last axis; ties -> the smallest index."""
    return np.argmax(scores, axis=-1)


def runner_up_gap(scores: np.ndarray) -> np.ndarray:
    """score[winner] - max(other scores); +inf when there is a single candidate."""
    if scores.shape[-1] == 1:
        return np.full(scores.shape[:-1], np.inf)
    top2 = -np.partition(-scores, 1, axis=-1)[..., :2]
    return top2[..., 0] - top2[..., 1]


class Selector(ABC):
    """A (possibly randomised) rule choosing one of M candidates, or ⊥ (= index M)."""

    name: str

    @abstractmethod
    def log_probs(self, scores: np.ndarray, sensitivity: float) -> np.ndarray:
        """(..., M) scores -> (..., M + 1) exact log output probabilities; last column is ⊥."""

    @abstractmethod
    def sample(self, scores: np.ndarray, sensitivity: float, rng: np.random.Generator) -> np.ndarray:
        """(..., M) scores -> (...,) chosen index in [0, M]; M means ⊥."""

    @abstractmethod
    def guarantee(self, sensitivity: float) -> str:
        """One line: the privacy this selector gives for scores of this sensitivity."""


def _with_bottom(log_p: np.ndarray, log_bottom: np.ndarray | float = -np.inf) -> np.ndarray:
    bottom = np.broadcast_to(np.asarray(log_bottom, dtype=float), log_p.shape[:-1])[..., None]
    return np.concatenate([log_p, bottom], axis=-1)


@dataclass(frozen=True)
class Argmax(Selector):
    """The non-private rule: the best score (ties -> first candidate)."""

    name: str = "np"

    def log_probs(self, scores, sensitivity):
        scores = np.asarray(scores, dtype=float)
        log_p = np.full(scores.shape, -np.inf)
        np.put_along_axis(log_p, first_argmax(scores)[..., None], 0.0, axis=-1)
        return _with_bottom(log_p)

    def sample(self, scores, sensitivity, rng):
        return first_argmax(np.asarray(scores, dtype=float))

    def guarantee(self, sensitivity):
        return "not private: the output is a deterministic function of the data"


@dataclass(frozen=True)
class ExponentialMechanism(Selector):
    """P(i) ∝ exp(ε·score_i / (2Δ)): ε-DP for scores of sensitivity Δ (McSherry-Talwar 2007)."""

    eps: float
    name: str = "pure"

    def __post_init__(self) -> None:
        check_eps(self.eps)

    def scale(self, sensitivity: float) -> float:
        return self.eps / (2.0 * sensitivity)

    def log_probs(self, scores, sensitivity):
        return _with_bottom(log_softmax(self.scale(sensitivity) * np.asarray(scores, dtype=float), axis=-1))

    def sample(self, scores, sensitivity, rng):
        logits = self.scale(sensitivity) * np.asarray(scores, dtype=float)
        return first_argmax(logits + rng.gumbel(size=logits.shape))  # Gumbel-max = exact softmax draw

    def guarantee(self, sensitivity):
        return f"{self.eps:g}-DP (pure): exponential mechanism on scores of sensitivity {sensitivity:g}"


@dataclass(frozen=True)
class TruncatedLaplace:
    """Laplace(1/ε) conditioned on [-A, A] with A = ln(1 + (e^ε - 1)/(2δ))/ε.

    This A makes P(Z ∈ [A-1, A]) = δ exactly, so thresholding q + Z > A for a sensitivity-1 q is
    (ε, δ)-DP, and nothing is released when q = 0 (Z > A is impossible).
    """

    eps: float
    delta: float

    def __post_init__(self) -> None:
        check_eps(self.eps)
        check_delta(self.delta)

    @property
    def bound(self) -> float:
        return math.log1p(math.expm1(self.eps) / (2 * self.delta)) / self.eps

    def _log_half_mass(self) -> float:
        """log(2(1 - e^{-εA})): the normaliser of the truncated density times ε."""
        return math.log(2.0) + math.log1p(-math.exp(-self.eps * self.bound))

    def log_sf(self, x: np.ndarray) -> np.ndarray:
        """log P(Z > x), stable in both tails."""
        x = np.clip(np.asarray(x, dtype=float), -self.bound, self.bound)
        eps, a = self.eps, self.bound
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            upper = -eps * x + np.log(-np.expm1(-eps * (a - x))) - self._log_half_mass()
            lower_cdf = eps * x + np.log(-np.expm1(-eps * (a + x))) - self._log_half_mass()
            return np.where(x >= 0, upper, np.log1p(-np.exp(lower_cdf)))

    def log_cdf(self, x: np.ndarray) -> np.ndarray:
        """log P(Z <= x)."""
        return self.log_sf(-np.asarray(x, dtype=float))  # symmetric and continuous law

    def sample(self, shape, rng: np.random.Generator) -> np.ndarray:
        u = rng.random(shape)
        eps, a = self.eps, self.bound
        two_c = 2 * -math.expm1(-eps * a)
        low = np.log(two_c * u + math.exp(-eps * a)) / eps
        high = -np.log(two_c * (1 - u) + math.exp(-eps * a)) / eps
        return np.where(u <= 0.5, low, high)


@dataclass(frozen=True)
class ProposeTestRelease(Selector):
    """(ε, δ)-DP selection: release the argmax only if it is stable, tested with bounded noise.

    q = max(0, ceil(gap / (2Δ)) - 1) lower-bounds (number of samples one must replace to change the
    argmax) - 1: each replacement moves the gap by at most 2Δ. q has sensitivity 1 and q = 0
    whenever a neighbouring dataset has a different argmax. Release iff q + Z > A, Z truncated
    Laplace; else ⊥. Departure from spec §2.2 (which tests d = ceil(gap/4)): the "- 1" makes
    q = 0 exactly on unstable datasets, so different answers are never released on neighbours.
    """

    eps: float
    delta: float
    name: str = "approx"

    def __post_init__(self) -> None:
        check_eps(self.eps)
        check_delta(self.delta)

    @property
    def noise(self) -> TruncatedLaplace:
        return TruncatedLaplace(self.eps, self.delta)

    def stability(self, scores: np.ndarray, sensitivity: float) -> np.ndarray:
        gap = runner_up_gap(np.asarray(scores, dtype=float))
        with np.errstate(invalid="ignore"):
            return np.maximum(0.0, np.ceil(gap / (2.0 * sensitivity)) - 1.0)

    def log_probs(self, scores, sensitivity):
        scores = np.asarray(scores, dtype=float)
        q = self.stability(scores, sensitivity)
        noise = self.noise
        log_release = noise.log_sf(noise.bound - q)
        log_p = np.full(scores.shape, -np.inf)
        np.put_along_axis(log_p, first_argmax(scores)[..., None], log_release[..., None], axis=-1)
        return _with_bottom(log_p, noise.log_cdf(noise.bound - q))

    def sample(self, scores, sensitivity, rng):
        scores = np.asarray(scores, dtype=float)
        q = self.stability(scores, sensitivity)
        released = q + self.noise.sample(q.shape, rng) > self.noise.bound
        return np.where(released, first_argmax(scores), scores.shape[-1])

    def guarantee(self, sensitivity):
        return (f"({self.eps:g}, {self.delta:g})-DP: propose-test-release, truncated Laplace on "
                f"[-A, A] with A = {self.noise.bound:.4g}")


@dataclass(frozen=True)
class SecureExponentialMechanism(ExponentialMechanism):
    """The exponential mechanism's law, drawn in integer arithmetic (exact_sampling; `--secure`)."""

    source: object = field(default=None, compare=False, repr=False)  # randrange source; None = the OS

    def sample(self, scores, sensitivity, rng):
        scores = np.asarray(scores)
        scale = rational(self.eps) / (2 * int(sensitivity))
        rows = scores.reshape(-1, scores.shape[-1]).astype(np.int64)
        source = self.source or SYSTEM
        return np.array([exponential_choice(row.tolist(), scale, source) for row in rows]).reshape(scores.shape[:-1])


@functools.lru_cache(maxsize=64)
def _discrete_law(eps: float, delta: float) -> tuple[int, np.ndarray]:
    """(T, log pmf on -T..T) of exp(-ε|z|) on |z| <= T, T the smallest integer with P(Z = T) <= δ."""
    bound = 1
    while True:
        z = np.arange(-bound, bound + 1)
        log_pmf = -eps * np.abs(z) - logsumexp(-eps * np.abs(z))
        if log_pmf[-1] <= math.log(delta):
            log_pmf.flags.writeable = False
            return bound, log_pmf
        bound += 1


@dataclass(frozen=True)
class DiscreteTruncatedLaplace:
    """Discrete Laplace P(z) ∝ exp(-ε|z|) on the integers, conditioned on |z| <= T.

    T is the smallest integer with P(Z = T) <= δ, so the test q + Z > T (q an integer of
    sensitivity 1) releases nothing at q = 0 and at most δ at q = 1, and every other neighbouring
    pair of stabilities changes the law by a factor e^ε: (ε, δ)-DP, checked exactly by
    privacy_audit.stability_level_audit.
    """

    eps: float
    delta: float

    @property
    def bound(self) -> int:
        return _discrete_law(self.eps, self.delta)[0]

    def log_sf(self, x) -> np.ndarray:
        """log P(Z > x)."""
        bound, log_pmf = _discrete_law(self.eps, self.delta)
        tail = np.concatenate([np.logaddexp.accumulate(log_pmf[::-1])[::-1], [-np.inf]])  # tail[k] = P(Z >= k - T)
        first = np.clip(np.floor(np.asarray(x, dtype=float)).astype(np.int64) + 1 + bound, 0, 2 * bound + 1)
        return tail[first]

    def log_cdf(self, x) -> np.ndarray:
        """log P(Z <= x)."""
        bound, log_pmf = _discrete_law(self.eps, self.delta)
        head = np.concatenate([[-np.inf], np.logaddexp.accumulate(log_pmf)])  # head[k] = P(Z <= k - 1 - T)
        last = np.clip(np.floor(np.asarray(x, dtype=float)).astype(np.int64) + 1 + bound, 0, 2 * bound + 1)
        return head[last]

    def sample(self, shape, rng: np.random.Generator) -> np.ndarray:
        bound, log_pmf = _discrete_law(self.eps, self.delta)
        return rng.choice(np.arange(-bound, bound + 1), size=shape, p=np.exp(log_pmf))

    def secure_sample(self, shape, source=None) -> np.ndarray:
        """The same law from exact_sampling.discrete_laplace, rejecting draws beyond ±T."""
        eps, bound, source = rational(self.eps), self.bound, source or SYSTEM

        def draw() -> int:
            while abs(z := discrete_laplace(eps, source)) > bound:
                pass
            return z

        count = int(np.prod(shape)) if shape else 1
        return np.array([draw() for _ in range(count)]).reshape(shape)


@dataclass(frozen=True)
class DiscreteProposeTestRelease(ProposeTestRelease):
    """Propose-test-release whose test noise is the discrete truncated Laplace: the (ε, δ)-DP
    mechanism `--secure` samples in integer arithmetic (`secure=True`)."""

    name: str = "approx-discrete"
    secure: bool = False
    source: object = field(default=None, compare=False, repr=False)

    @property
    def noise(self) -> DiscreteTruncatedLaplace:
        return DiscreteTruncatedLaplace(self.eps, self.delta)

    def sample(self, scores, sensitivity, rng):
        if not self.secure:
            return super().sample(scores, sensitivity, rng)
        scores = np.asarray(scores, dtype=float)
        q = self.stability(scores, sensitivity)
        released = q + self.noise.secure_sample(q.shape, self.source) > self.noise.bound
        return np.where(released, first_argmax(scores), scores.shape[-1])

    def guarantee(self, sensitivity):
        return (f"({self.eps:g}, {self.delta:g})-DP: propose-test-release, discrete Laplace truncated to "
                f"[-T, T], T = {self.noise.bound}" + (", sampled in integer arithmetic" if self.secure else ""))
