"""Sampling distributions D over the universe, with their exact laws (spec §2.1, §4).

D is arbitrary in the agnostic setting: it need not be supported on any language. Every
distribution here can (a) draw i.i.d. samples with a seeded `numpy.random.Generator` and (b) list
its *atoms*: finitely many disjoint pieces of the universe, each with its exact mass and one
representative element. Membership of a representative in a language is the membership of the
whole atom, so counts per atom are sufficient statistics for every score the algorithms compute
and the exact error calculators sum over them.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.dplang.languages import Language, Progression, cantor_pair

MASS_TOLERANCE = 1e-9


def check_masses(masses: Sequence[float], what: str) -> np.ndarray:
    """Masses must be finite, non-negative and sum to 1 (tolerance 1e-9, spec §7)."""
    values = np.asarray(masses, dtype=float)
    if values.size == 0:
        raise ProceedingsError(f"{what}: no probability masses given")
    if not np.all(np.isfinite(values)) or np.any(values < 0):
        raise ProceedingsError(f"{what}: masses must be finite and >= 0, got {values.tolist()}")
    if abs(values.sum() - 1.0) > MASS_TOLERANCE:
        raise ProceedingsError(f"{what}: masses sum to {values.sum():.12g}, not 1; rescale them")
    return values


@dataclass(frozen=True)
class Atoms:
    """Disjoint pieces of the universe: one representative element and the exact mass of each."""

    representatives: tuple
    masses: np.ndarray

    def patterns(self, languages: Sequence[Language]) -> np.ndarray:
        """(atoms, languages) membership of each atom in each language."""
        return np.stack([lang.contains_many(list(self.representatives)) for lang in languages], axis=1)


class Distribution(ABC):
    """A distribution over integers or strings with an exact atomic description."""

    name: str

    @abstractmethod
    def sample(self, shape: int | tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        """i.i.d. draws, as an array of the given shape."""

    @abstractmethod
    def atoms(self, languages: Sequence[Language]) -> Atoms:
        """Atoms fine enough that each lies inside or outside every language given."""


@dataclass(frozen=True)
class AtomDistribution(Distribution):
    """Mass `masses[a]` on atom a; inside an atom the payload is Geometric(payload_stop) on {0, 1, ...}.

    The element is the Cantor pair (atom, payload), so `AtomUnion` languages decide membership.
    """

    masses: dict[int, float]
    name: str = "atoms"
    payload_stop: float = 0.5
    _ids: np.ndarray = field(init=False, repr=False, compare=False)
    _probs: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        ids = np.array(sorted(self.masses), dtype=np.int64)
        probs = check_masses([self.masses[int(i)] for i in ids], f"distribution '{self.name}'")
        if np.any(ids < 0):
            raise ProceedingsError(f"distribution '{self.name}': atom ids must be >= 0")
        object.__setattr__(self, "_ids", ids[probs > 0])
        object.__setattr__(self, "_probs", probs[probs > 0] / probs[probs > 0].sum())

    def sample(self, shape, rng):
        atoms = rng.choice(self._ids, size=shape, p=self._probs)
        payload = rng.geometric(self.payload_stop, size=shape) - 1
        return cantor_pair(atoms, payload)

    def atoms(self, languages):
        """Every listed atom, zero-mass ones included (they matter for privacy audits)."""
        ids = sorted(self.masses)
        masses = np.array([self.masses[a] for a in ids], dtype=float)
        return Atoms(tuple(cantor_pair(a, 0) for a in ids), masses / masses.sum())

    def mass_of(self, atom: int) -> float:
        return float(self.masses.get(atom, 0.0))


@dataclass(frozen=True)
class ProgressionMixture(Distribution):
    """A mixture of `multiplier·k + offset` with k ~ Geometric(stop) on {1, 2, ...} (spec F4).

    `components` are (weight, multiplier, offset). Membership of m·k + o in a progression a·ℕ + r
    depends only on k mod a, so atoms are the classes of k modulo the lcm of the moduli, with
    masses in closed form: P(k ≡ r mod P) = stop (1 - stop)^(r-1) / (1 - (1 - stop)^P).
    """

    components: tuple[tuple[float, int, int], ...]
    stop: float = 0.25
    name: str = "progression mixture"

    def __post_init__(self) -> None:
        check_masses([w for w, _, _ in self.components], f"distribution '{self.name}' weights")
        if not 0 < self.stop < 1:
            raise ProceedingsError(f"distribution '{self.name}': geometric stop must lie in (0, 1)")

    def sample(self, shape, rng):
        weights = np.array([w for w, _, _ in self.components])
        which = rng.choice(len(self.components), size=shape, p=weights)
        k = rng.geometric(self.stop, size=shape)
        multiplier = np.array([m for _, m, _ in self.components])[which]
        offset = np.array([o for _, _, o in self.components])[which]
        return multiplier * k + offset

    def atoms(self, languages):
        if not all(isinstance(lang, Progression) for lang in languages):
            raise ProceedingsError(f"distribution '{self.name}' describes atoms for progressions only")
        period = math.lcm(*[lang.modulus for lang in languages]) if languages else 1
        r = np.arange(1, period + 1)
        class_mass = self.stop * (1 - self.stop) ** (r - 1) / (1 - (1 - self.stop) ** period)
        reps, masses = [], []
        for weight, multiplier, offset in self.components:
            if weight > 0:
                reps += [int(multiplier * k + offset) for k in r]
                masses.append(weight * class_mass)
        return Atoms(tuple(reps), np.concatenate(masses))


@dataclass(frozen=True)
class EmpiricalStrings(Distribution):
    """The uniform distribution over the tokens of a corpus (repeated words weigh more)."""

    words: tuple[str, ...]
    name: str = "corpus"
    _vocab: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _probs: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.words:
            raise ProceedingsError(f"distribution '{self.name}' has no words; give a non-empty corpus")
        counts = Counter(self.words)
        vocab = tuple(sorted(counts))
        object.__setattr__(self, "_vocab", vocab)
        object.__setattr__(self, "_probs", np.array([counts[w] for w in vocab], float) / len(self.words))

    def sample(self, shape, rng):
        index = rng.choice(len(self._vocab), size=shape, p=self._probs)
        return np.array(self._vocab, dtype=object)[index]

    def atoms(self, languages):
        return Atoms(self._vocab, self._probs.copy())

    @property
    def longest(self) -> int:
        return max(len(w) for w in self._vocab)
