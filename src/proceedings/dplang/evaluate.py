"""Error curves: error_n of an algorithm on an instance, by the best available method (spec §2.5).

`auto` prefers an exact reduction, then the exact sandwich bounds (countable families), then exact
enumeration when it is small enough, then Monte Carlo. Every point records its method, its
interval and the seconds it took (the speed benchmark reads these).
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass
from typing import Sequence

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.dplang.exact import (ENUMERATION_LIMIT, cell_masses, enumerated_log_error, reduced_log_error,
                                      sandwich_log_error)
from proceedings.dplang.families import Instance
from proceedings.dplang.learner import Learner
from proceedings.dplang.montecarlo import mc_log_error

METHODS = ("auto", "reduced", "enumerate", "sandwich", "mc")
LN10 = math.log(10.0)


@dataclass(frozen=True)
class ErrorPoint:
    """log error (natural log) at sample size n, with an interval: exact bounds or a 95% CI."""

    n: int
    log_err: float
    log_low: float
    log_high: float
    method: str
    seconds: float
    trials: int = 0

    @property
    def log10_err(self) -> float:
        return self.log_err / LN10

    def as_row(self) -> dict:
        return asdict(self)


def choose_method(instance: Instance, learner: Learner, n: int) -> str:
    if learner.task in instance.reductions:
        return "reduced"
    if (instance.competitors is not None and learner.task == "identification") or (
            instance.rival is not None and learner.task == "generation"):
        return "sandwich"
    if instance.collection.is_finite:
        cells = len(cell_masses(instance, learner.plan(instance.collection, n))[1])
        if math.comb(n + cells - 1, cells - 1) <= ENUMERATION_LIMIT:
            return "enumerate"
    return "mc"


def error_point(instance: Instance, learner: Learner, n: int, method: str = "auto",
                trials: int = 10_000, seed: int = 0) -> ErrorPoint:
    if n < 1:
        raise ProceedingsError(f"sample size must be >= 1, got {n}")
    if method not in METHODS:
        raise ProceedingsError(f"unknown method '{method}'; choose one of: {', '.join(METHODS)}")
    method = choose_method(instance, learner, n) if method == "auto" else method
    start = time.perf_counter()
    if method == "mc":
        values = mc_log_error(instance, learner, n, trials, np.random.default_rng([seed, n]))
    else:
        values = {"reduced": reduced_log_error, "enumerate": enumerated_log_error,
                  "sandwich": sandwich_log_error}[method](instance, learner, n)
    return ErrorPoint(n, *values, method=method, seconds=time.perf_counter() - start,
                      trials=trials if method == "mc" else 0)


def error_curve(instance: Instance, learner: Learner, ns: Sequence[int], method: str = "auto",
                trials: int = 10_000, seed: int = 0) -> list[ErrorPoint]:
    """error_n for each n (each Monte Carlo point has its own seed stream [seed, n])."""
    return [error_point(instance, learner, int(n), method, trials, seed) for n in ns]


def geometric_grid(low: int, high: int, factor: float = 2.0) -> list[int]:
    """low, low·factor, ... up to high (inclusive when it lands on it)."""
    if not 1 <= low <= high or factor <= 1:
        raise ProceedingsError(f"bad grid {low}:{high} (factor {factor}); need 1 <= low <= high and factor > 1")
    grid, n = [], float(low)
    while n <= high * (1 + 1e-9):
        grid.append(int(round(n)))
        n *= factor
    return grid
