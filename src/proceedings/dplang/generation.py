"""Agnostic language generation: NP-GEN, PURE-GEN, APPROX-GEN (spec §2.3, [inferred]).

A data-independent *menu* lists infinite candidate sets G (the prefix languages and their pairwise
intersections). A set scores s_G = -max{N_i : G ⊄ L_i}: it is good when every language it escapes
explains little data, i.e. when G lies inside every coverage-optimal language. After selecting G
(argmax / exponential mechanism / propose-test-release), the output step draws an element of G of
size >= 2^(n+64) without looking at the data, so it is unseen and the privacy of the selection
carries over by post-processing.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.dplang.languages import Collection, Language
from proceedings.dplang.learner import BOTTOM, Learner, Plan
from proceedings.dplang.mechanisms import Argmax, ExponentialMechanism, ProposeTestRelease
from proceedings.dplang.identification import prefix_size, sqrt_prefix
from proceedings.dplang.scores import CellCounts, menu_scores

MENU_CAP = 500  # spec §2.3


def far_level(n: int) -> int:
    """B_n = 2^(n+64): beyond every sample with probability >= 1 - n·D(X >= B_n) (spec §2.3)."""
    return n + 64


def build_menu(languages: Sequence[Language], cap: int = MENU_CAP) -> list[Language]:
    """Infinite prefix languages, then infinite pairwise intersections; duplicates removed."""
    menu: list[Language] = []

    def add(candidate: Language | None) -> None:
        if candidate is None or len(menu) >= cap or not candidate.is_infinite():
            return
        if not any(candidate.equals(item) for item in menu):
            menu.append(candidate)

    for language in languages:
        add(language)
    for i in range(len(languages)):
        for j in range(i + 1, len(languages)):
            add(languages[i].intersect(languages[j]))
    if not menu:
        raise ProceedingsError("no infinite language or intersection in the prefix: nothing to generate from")
    return menu


@functools.lru_cache(maxsize=64)  # a sweep asks for the same prefix once per arm
def menu_and_escapes(languages: tuple[Language, ...]) -> tuple[tuple[Language, ...], np.ndarray]:
    """The menu and escapes[g, i] = menu[g] ⊄ L_i (data-independent)."""
    menu = tuple(build_menu(languages))
    escapes = np.array([[not item.is_subset(lang) for lang in languages] for item in menu], dtype=bool)
    escapes.flags.writeable = False
    return menu, escapes


@dataclass(frozen=True)
class GenerationPlan(Plan):
    languages: tuple[Language, ...]
    menu: tuple[Language, ...]
    escapes: np.ndarray  # escapes[g, i] = menu[g] ⊄ L_i
    level: int
    sensitivity: int = 1

    def scores(self, cells: CellCounts) -> np.ndarray:
        return menu_scores(cells, self.escapes)

    def output(self, choice, rng):
        return BOTTOM if choice == len(self.menu) else self.menu[choice].far_element(self.level, rng)

    def valid_fraction(self, target: Sequence[int]) -> np.ndarray:
        targets = [self.languages[i - 1] for i in target]
        return np.array([item.far_fraction_in(targets, self.level) for item in self.menu])


@dataclass(frozen=True)
class Generator(Learner):
    """Outputs an element (unseen with overwhelming probability), or ⊥."""

    prefix: Callable[[int], int] = sqrt_prefix
    level: Callable[[int], int] = far_level
    task: str = "generation"

    def plan(self, collection: Collection, n: int) -> GenerationPlan:
        languages = tuple(collection.prefix(prefix_size(collection, n, self.prefix)))
        return GenerationPlan(languages, *menu_and_escapes(languages), self.level(n))


def np_generator(**schedules) -> Generator:
    """NP-GEN: the best menu score (ties to the first item), then the output step."""
    return Generator(Argmax(), **schedules)


def pure_generator(eps: float, **schedules) -> Generator:
    """PURE-GEN: P(G) ∝ exp(ε s_G / 2); ε-DP."""
    return Generator(ExponentialMechanism(eps), **schedules)


def approx_generator(eps: float, delta: float, **schedules) -> Generator:
    """APPROX-GEN (spec's APPROX-GEN-PTR): NP-GEN's set released by propose-test-release."""
    return Generator(ProposeTestRelease(eps, delta), **schedules)
