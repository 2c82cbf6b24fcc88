"""A resumable grid of error points: arms (family, task, mechanism, ε, δ, schedule) × sample sizes.

Each finished arm is appended to a JSON-lines store written atomically, so an interrupted sweep
resumes where it stopped and a partial store is always valid (spec §6 `sweep`, §7).
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterable, Sequence

from proceedings.core.progress import progress_bar

from proceedings.core.errors import ProceedingsError
from proceedings.core.runtime import atomic_write_text
from proceedings.dplang import families
from proceedings.dplang.evaluate import ErrorPoint, error_point
from proceedings.dplang.generation import approx_generator, np_generator, pure_generator
from proceedings.dplang.identification import approx_identifier, np_identifier, pure_identifier, sqrt_prefix
from proceedings.dplang.learner import Learner

PREFIX_SCHEDULES = {
    "sqrt": sqrt_prefix,  # r(n) = n / k(n) ≈ √n on F3
    "cbrt": lambda n: math.ceil(n ** (1 / 3)),  # r(n) ≈ n^(2/3)
    "log": lambda n: math.ceil(math.log(n)),  # r(n) ≈ n / ln n
}
BUILDERS = {
    ("identification", "np"): np_identifier, ("identification", "pure"): pure_identifier,
    ("identification", "approx"): approx_identifier, ("generation", "np"): np_generator,
    ("generation", "pure"): pure_generator, ("generation", "approx"): approx_generator,
}
EXTRA_FAMILIES = {  # the mirrored instances of the two-point lower bounds
    "f1-mirror": lambda: families.two_language(p_a=0.25, p_b=0.30, p_c=0.35),
    "g1-mirror": lambda: families.disjoint_pair(p_a=0.25, p_c=0.35),
}


@functools.lru_cache(maxsize=None)
def family(name: str) -> families.Instance:
    """A named instance (f1..f5, g1, and the mirrors), built once per process."""
    return EXTRA_FAMILIES[name]() if name in EXTRA_FAMILIES else families.instance(name)


def rate_of_schedule(schedule: str, n: int) -> float:
    """r(n) = n / (k(n) + 1): the exponent scale of F3 under a prefix schedule."""
    return n / (PREFIX_SCHEDULES[schedule](n) + 1)


@dataclass(frozen=True)
class Arm:
    family: str
    task: str  # identification | generation
    mechanism: str  # np | pure | approx
    eps: float | None = None
    delta: float | None = None
    schedule: str = "sqrt"
    method: str = "auto"  # see evaluate.METHODS
    trials: int = 0  # Monte Carlo trials (method "mc")

    def learner(self) -> Learner:
        try:
            build = BUILDERS[(self.task, self.mechanism)]
        except KeyError:
            raise ProceedingsError(f"unknown arm {self.task}/{self.mechanism}; mechanisms: np, pure, approx") from None
        privacy = [p for p in (self.eps, self.delta) if p is not None]
        return build(*privacy, prefix=PREFIX_SCHEDULES[self.schedule])

    @property
    def label(self) -> str:
        privacy = "".join(f" {k}={v:g}" for k, v in (("eps", self.eps), ("delta", self.delta)) if v is not None)
        return f"{self.family} {self.task[:2]}-{self.mechanism}{privacy} [{self.schedule}, {self.method}]"


class PointStore:
    """error points keyed by (arm, n), persisted as JSON lines."""

    def __init__(self, path: Path | None):
        self.path = path
        self.points: dict[tuple[Arm, int], ErrorPoint] = {}
        if path is not None and path.exists():
            for line in path.read_text().splitlines():
                row = json.loads(line)
                arm = Arm(**row.pop("arm"))
                self.points[(arm, row["n"])] = ErrorPoint(**{k: float(v) if k.startswith("log") else v
                                                             for k, v in row.items()})

    def save(self) -> None:
        if self.path is not None:
            lines = [json.dumps({"arm": asdict(arm), **point.as_row()}, default=str)
                     for (arm, _), point in self.points.items()]
            atomic_write_text(self.path, "\n".join(lines) + "\n")

    def curve(self, arm: Arm, ns: Iterable[int]) -> list[ErrorPoint]:
        return [self.points[(arm, n)] for n in ns]


def run_grid(plan: Sequence[tuple[Arm, Sequence[int]]], store: PointStore, seed: int = 0,
             progress: bool = True) -> PointStore:
    """Fill the store with every (arm, n) of the plan not already in it; saves after each arm."""
    todo = [(arm, [n for n in ns if (arm, n) not in store.points]) for arm, ns in plan]
    todo = [(arm, ns) for arm, ns in todo if ns]
    for arm, ns in progress_bar(todo, desc="dplang grid", unit="arm", disable=not progress or not todo):
        learner, instance = arm.learner(), family(arm.family)
        for n in ns:
            store.points[(arm, n)] = error_point(instance, learner, n, arm.method, arm.trials, seed)
        store.save()
    return store
