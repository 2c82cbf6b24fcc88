"""Agnostic language identification: NP-ID, PURE-ID, APPROX-ID (spec §2.2, [inferred]).

All three maximise the thresholded score v_i = N_i - max(0, θ_n·n - e_i) over the prefix
L_1..L_k(n); they differ only in the selector: argmax (non-private), exponential mechanism
(pure ε-DP, exponent × min{1, ε}), propose-test-release with truncated Laplace ((ε, δ)-DP, the
non-private exponent for every fixed ε as n grows).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from proceedings.dplang.languages import Collection, Language
from proceedings.dplang.learner import BOTTOM, Learner, Plan
from proceedings.dplang.mechanisms import Argmax, ExponentialMechanism, ProposeTestRelease
from proceedings.dplang.scores import (CellCounts, identification_scores, identification_sensitivity,
                                       proper_subsets)


def sqrt_prefix(n: int) -> int:
    """k(n) = ceil(sqrt(n)), the default prefix schedule for countable collections (spec §2.2)."""
    return math.isqrt(n - 1) + 1 if n > 1 else 1


def cube_root_threshold(n: int) -> float:
    """θ_n = n^(-1/3), the default threshold schedule (spec §2.2)."""
    return n ** (-1.0 / 3.0)


def prefix_size(collection: Collection, n: int, schedule: Callable[[int], int]) -> int:
    """All of a finite collection; k(n) languages of a countable one."""
    return collection.size if collection.is_finite else max(1, schedule(n))


@dataclass(frozen=True)
class IdentificationPlan(Plan):
    languages: tuple[Language, ...]
    below: np.ndarray  # below[j, i] = L_j ⊊ L_i
    threshold: int  # floor(θ_n · n)
    sensitivity: int

    def scores(self, cells: CellCounts) -> np.ndarray:
        return identification_scores(cells, self.below, self.threshold)

    def output(self, choice, rng):
        return BOTTOM if choice == len(self.languages) else choice + 1  # 1-based index

    def valid_fraction(self, target: Sequence[int]) -> np.ndarray:
        return np.array([float(i + 1 in target) for i in range(len(self.languages))])


@dataclass(frozen=True)
class Identifier(Learner):
    """Outputs the index i of L_i (1-based), or ⊥."""

    prefix: Callable[[int], int] = sqrt_prefix
    theta: Callable[[int], float] = cube_root_threshold
    task: str = "identification"

    def plan(self, collection: Collection, n: int) -> IdentificationPlan:
        languages = collection.prefix(prefix_size(collection, n, self.prefix))
        below = proper_subsets(languages)
        return IdentificationPlan(languages, below, int(math.floor(self.theta(n) * n)),
                                  identification_sensitivity(below))


def np_identifier(**schedules) -> Identifier:
    """NP-ID: argmax of v_i, ties to the smallest index."""
    return Identifier(Argmax(), **schedules)


def pure_identifier(eps: float, **schedules) -> Identifier:
    """PURE-ID: P(i) ∝ exp(ε v_i / (2Δ)); ε-DP."""
    return Identifier(ExponentialMechanism(eps), **schedules)


def approx_identifier(eps: float, delta: float, **schedules) -> Identifier:
    """APPROX-ID: NP-ID's answer released by propose-test-release; (ε, δ)-DP."""
    return Identifier(ProposeTestRelease(eps, delta), **schedules)
