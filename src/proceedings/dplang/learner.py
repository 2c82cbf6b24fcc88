"""What identification and generation share: a data-independent plan, scores, a selector.

Every algorithm of spec §2.2-2.3 is `selector(scores(sample))` followed by a data-independent
output step. The *plan* fixes everything that depends on n and the collection but not on the data
(prefix languages, inclusion tests, the menu, thresholds, sensitivity), so privacy is a property of
the selector alone, and the exact calculators and audits call the very same scoring code.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from proceedings.dplang.languages import Collection, Language
from proceedings.dplang.mechanisms import Selector
from proceedings.dplang.scores import CellCounts, summarize


class _Bottom:
    """The answer ⊥: the mechanism declined to answer (counted as an error)."""

    def __repr__(self) -> str:
        return "⊥"


BOTTOM = _Bottom()


class Plan(ABC):
    """The data-independent part of an algorithm at sample size n."""

    languages: tuple[Language, ...]  # the prefix L_1..L_k(n) whose memberships define the cells
    sensitivity: int

    @abstractmethod
    def scores(self, cells: CellCounts) -> np.ndarray:
        """(..., M) utility of each candidate."""

    @abstractmethod
    def output(self, choice: int, rng: np.random.Generator):
        """The answer for candidate `choice` (or ⊥ when choice == M)."""

    @abstractmethod
    def valid_fraction(self, target: Sequence[int]) -> np.ndarray:
        """(M,) exact probability that candidate m's answer is correct for target indices T(D)."""


@dataclass(frozen=True)
class Learner(ABC):
    """An identification or generation algorithm: a plan and a selector."""

    selector: Selector

    task: str = ""  # "identification" | "generation"

    @abstractmethod
    def plan(self, collection: Collection, n: int) -> Plan:
        """Everything the algorithm fixes before looking at the data."""

    def log_output_probs(self, plan: Plan, cells: CellCounts) -> np.ndarray:
        """(..., M + 1) exact log-law of the chosen candidate (last column ⊥) given cell counts."""
        return self.selector.log_probs(plan.scores(cells), plan.sensitivity)

    def choose_many(self, samples: np.ndarray, plan: Plan, rng: np.random.Generator) -> np.ndarray:
        """Candidate chosen on each of a batch of samples (..., n)."""
        cells = summarize(samples, plan.languages)
        return self.selector.sample(plan.scores(cells), plan.sensitivity, rng)

    def run(self, sample: Sequence, collection: Collection, rng: np.random.Generator):
        """The algorithm's answer on one sample: an index, an element, or ⊥."""
        sample = np.asarray(list(sample) if not isinstance(sample, np.ndarray) else sample)
        plan = self.plan(collection, len(sample))
        choice = int(self.choose_many(sample[None, :], plan, rng)[0])
        return plan.output(choice, rng)

    def guarantee(self, collection: Collection, n: int) -> str:
        """One line: the privacy of this algorithm on this collection at sample size n."""
        return self.selector.guarantee(self.plan(collection, n).sensitivity)
