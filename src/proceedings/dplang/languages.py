"""Languages and collections of languages (spec §2.1).

A language is a decidable set of integers or strings. The algorithms use four capabilities of a
family, all decidable here: membership, inclusion L ⊆ M, emptiness/infiniteness of intersections,
and a data-independent *far element* (an element larger than anything a sample contains, so a
generator can output something unseen without looking at the data). Three families:

- `Progression`: {a·k + r : k ≥ 0} on ℕ (spec F4); inclusion by divisibility, intersection by CRT.
- `AtomUnion`: unions of *atoms* of ℕ. Every integer x is the Cantor pair (atom, payload); x lies in
  atom `atom`. Any Venn diagram of finitely or countably many languages (spec F1-F3) is exactly a
  family of atom unions, each atom infinite. The atom set is eventually periodic, hence decidable.
- `RegularLanguage`: a regular expression compiled to a minimal DFA by automata-lib (spec F6).

A `Collection` is a finite list or a countable enumeration `index -> Language` (1-based, as in the
spec's L_1, L_2, ...); algorithms only ever read a finite prefix of it.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from proceedings.core.errors import ProceedingsError


class MissingCapability(ProceedingsError):
    """A family cannot decide something an algorithm needs (e.g. inclusion across families)."""


class Language(ABC):
    """A decidable language; subclasses implement the four capabilities the algorithms use."""

    name: str

    @abstractmethod
    def contains_many(self, elements: np.ndarray | Sequence) -> np.ndarray:
        """Membership of every element, as a boolean array."""

    @abstractmethod
    def is_subset(self, other: "Language") -> bool:
        """Decide self ⊆ other."""

    @abstractmethod
    def intersect(self, other: "Language") -> "Language | None":
        """self ∩ other as a language of the same family, or None when it is empty."""

    @abstractmethod
    def is_infinite(self) -> bool:
        """Decide whether the language is infinite (generation needs infinitely many candidates)."""

    @abstractmethod
    def far_element(self, level: int, rng: np.random.Generator):
        """An element of 'size' >= level drawn without looking at any data (spec §2.3 output step).

        Integers: a value >= 2**level. Strings: a word of length >= level.
        """

    @abstractmethod
    def far_fraction_in(self, others: Sequence["Language"], level: int) -> float:
        """Exact probability that `far_element(level)` lies in every language of `others`."""

    def __contains__(self, element) -> bool:
        return bool(self.contains_many([element])[0])

    def equals(self, other: "Language") -> bool:
        return self.is_subset(other) and other.is_subset(self)

    def is_proper_subset(self, other: "Language") -> bool:
        return self.is_subset(other) and not other.is_subset(self)

    def __repr__(self) -> str:
        return self.name

    def _require_same_family(self, other: "Language", what: str) -> None:
        if type(other) is not type(self):
            raise MissingCapability(
                f"cannot decide {what} between {type(self).__name__} '{self.name}' and "
                f"{type(other).__name__} '{other.name}'; use one language family per collection"
            )


# --------------------------------------------------------------------------- integers: progressions


@dataclass(frozen=True, repr=False)
class Progression(Language):
    """{modulus·k + residue : k >= 0}, the arithmetic progressions of spec F4."""

    modulus: int
    residue: int = 0
    name: str = ""

    def __post_init__(self) -> None:
        if self.modulus < 1:
            raise ProceedingsError(f"progression modulus must be >= 1, got {self.modulus}")
        object.__setattr__(self, "residue", self.residue % self.modulus)
        if not self.name:
            shift = f"+{self.residue}" if self.residue else ""
            object.__setattr__(self, "name", f"{self.modulus}N{shift}")

    def contains_many(self, elements):
        values = _as_integers(elements)
        if values.dtype == object:
            return np.array([v >= 0 and v % self.modulus == self.residue for v in values], dtype=bool)
        return (values >= 0) & (values % self.modulus == self.residue)

    def is_subset(self, other):
        self._require_same_family(other, "inclusion")
        return self.modulus % other.modulus == 0 and self.residue % other.modulus == other.residue

    def intersect(self, other):
        self._require_same_family(other, "intersection")
        g = math.gcd(self.modulus, other.modulus)
        if (self.residue - other.residue) % g:
            return None
        lcm = self.modulus * other.modulus // g
        # CRT: x ≡ r1 (m1), x ≡ r2 (m2); step through the smaller class.
        x = self.residue
        while x % other.modulus != other.residue:
            x += self.modulus
        return Progression(lcm, x % lcm)

    def is_infinite(self):
        return True

    def far_element(self, level, rng):
        # u uniform in [2**level, 2**(level+1)); the span is a multiple of every power of two, and
        # `far_fraction_in` uses exact residue counting over one period of the other moduli.
        return self.residue + self.modulus * _uniform_big(level, rng)

    def far_fraction_in(self, others, level):
        period = math.lcm(*[o.modulus for o in others]) if others else 1
        low = 2 ** level
        hits = 0
        for u in range(low, low + period):  # membership depends on u mod period only
            x = self.residue + self.modulus * u
            hits += all(x % o.modulus == o.residue for o in others)
        # exact for the span [2**level, 2**(level+1)) when period is a power of two; otherwise the
        # error is below period / 2**level, i.e. below 2**-60 at the levels used (level >= 64).
        return hits / period


# --------------------------------------------------------------------------- integers: atom unions


def cantor_pair(atom, payload):
    """The integer coding (atom, payload); works on Python ints and int64 arrays."""
    s = atom + payload
    return s * (s + 1) // 2 + payload


def cantor_unpair(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(atom, payload) of each integer; exact for int64 arrays and for Python ints (object arrays)."""
    values = _as_integers(values)
    if values.dtype == object:
        pairs = [_unpair_int(int(v)) for v in values]
        return (np.array([a for a, _ in pairs], dtype=object), np.array([p for _, p in pairs], dtype=object))
    w = np.floor((np.sqrt(8.0 * values + 1.0) - 1.0) / 2.0).astype(np.int64)
    # float sqrt may be off by one for large values: fix up exactly in integers
    w -= (w * (w + 1) // 2 > values).astype(np.int64)
    w += ((w + 1) * (w + 2) // 2 <= values).astype(np.int64)
    payload = values - w * (w + 1) // 2
    return w - payload, payload


def _unpair_int(x: int) -> tuple[int, int]:
    w = (math.isqrt(8 * x + 1) - 1) // 2
    payload = x - w * (w + 1) // 2
    return w - payload, payload


@dataclass(frozen=True)
class AtomSet:
    """An eventually periodic set of atom ids: `finite` ∪ {i >= start : i mod period ∈ residues}."""

    finite: frozenset[int] = frozenset()
    start: int = 0
    period: int = 1
    residues: frozenset[int] = frozenset()

    def contains_many(self, ids: np.ndarray) -> np.ndarray:
        ids = np.asarray(ids)
        inside = np.isin(ids, list(self.finite))
        if self.residues:
            inside |= (ids >= self.start) & np.isin(ids % self.period, list(self.residues))
        return inside

    def __contains__(self, i: int) -> bool:
        return i in self.finite or (bool(self.residues) and i >= self.start and i % self.period in self.residues)

    @property
    def horizon(self) -> int:
        """Beyond this id, membership is periodic."""
        return max([self.start] + [i + 1 for i in self.finite])

    def is_empty(self) -> bool:
        return not self.finite and not self.residues

    def smallest(self) -> int:
        for i in range(self.horizon + self.period):
            if i in self:
                return i
        raise ProceedingsError("empty atom set has no smallest atom")

    def is_subset(self, other: "AtomSet") -> bool:
        period = math.lcm(self.period, other.period)
        end = max(self.horizon, other.horizon) + period
        return all(i in other for i in range(end) if i in self)

    def intersect(self, other: "AtomSet") -> "AtomSet":
        period = math.lcm(self.period, other.period)
        start = max(self.horizon, other.horizon)
        finite = frozenset(i for i in range(start) if i in self and i in other)
        residues = frozenset(i % period for i in range(start, start + period) if i in self and i in other)
        return AtomSet(finite, start, period, residues)


@dataclass(frozen=True, repr=False)
class AtomUnion(Language):
    """The integers whose atom (first Cantor coordinate) lies in `atoms`; every atom is infinite."""

    atoms: AtomSet
    name: str = ""

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", f"atoms{sorted(self.atoms.finite)}")

    @classmethod
    def of(cls, ids: Sequence[int], name: str = "") -> "AtomUnion":
        return cls(AtomSet(frozenset(ids)), name)

    def contains_many(self, elements):
        values = _as_integers(elements)
        if values.dtype == object:
            return np.array([v >= 0 and _unpair_int(int(v))[0] in self.atoms for v in values], dtype=bool)
        atom, _ = cantor_unpair(np.maximum(values, 0))
        return (values >= 0) & self.atoms.contains_many(atom)

    def is_subset(self, other):
        self._require_same_family(other, "inclusion")
        return self.atoms.is_subset(other.atoms)

    def intersect(self, other):
        self._require_same_family(other, "intersection")
        common = self.atoms.intersect(other.atoms)
        return None if common.is_empty() else AtomUnion(common, f"{self.name}&{other.name}")

    def is_infinite(self):
        return not self.atoms.is_empty()

    def far_element(self, level, rng):
        # the smallest atom of the set (data-independent), with a payload >= 2**level
        return cantor_pair(self.atoms.smallest(), _uniform_big(level, rng))

    def far_fraction_in(self, others, level):
        atom = self.atoms.smallest()
        return float(all(atom in o.atoms for o in others))


# --------------------------------------------------------------------------- strings: regular


@dataclass(frozen=True, repr=False)
class RegularLanguage(Language):
    """A regular expression over `alphabet`, compiled to a minimal DFA with automata-lib."""

    regex: str
    alphabet: str = "abcdefghijklmnopqrstuvwxyz"
    name: str = ""
    dfa: object = field(default=None, compare=False)

    def __post_init__(self) -> None:
        from automata.fa.dfa import DFA
        from automata.fa.nfa import NFA

        if self.dfa is None:
            try:
                nfa = NFA.from_regex(self.regex, input_symbols=set(self.alphabet))
            except Exception as err:  # automata-lib raises several exception types for bad syntax
                raise ProceedingsError(f"regular expression '{self.regex}' is not valid ({err})") from None
            object.__setattr__(self, "dfa", DFA.from_nfa(nfa, minify=True))
        if not self.name:
            object.__setattr__(self, "name", self.regex)

    def contains_many(self, elements):
        return np.array([isinstance(s, str) and self.dfa.accepts_input(s) for s in elements], dtype=bool)

    def is_subset(self, other):
        self._require_same_family(other, "inclusion")
        return self.dfa.issubset(other.dfa)

    def intersect(self, other):
        self._require_same_family(other, "intersection")
        both = self.dfa & other.dfa
        if both.isempty():
            return None
        return RegularLanguage(f"({self.regex})&({other.regex})", self.alphabet, dfa=both)

    def is_infinite(self):
        return not self.dfa.isfinite()

    def far_length(self, level: int) -> int:
        """The first length >= level with words in the language (data-independent)."""
        for length in range(level, level + len(self.dfa.states) + 1):
            if self.dfa.count_words_of_length(length) > 0:
                return length
        raise ProceedingsError(f"language '{self.name}' has no words of length >= {level}; it is finite")

    def far_element(self, level, rng):
        return self.dfa.random_word(self.far_length(level), seed=int(rng.integers(2**63)))

    def far_fraction_in(self, others, level):
        length = self.far_length(level)
        common = self.dfa
        for other in others:
            common = common & other.dfa
        return common.count_words_of_length(length) / self.dfa.count_words_of_length(length)


# --------------------------------------------------------------------------- collections


@dataclass(frozen=True)
class Collection:
    """A finite list of languages, or a countable enumeration `language_at(i)` for i = 1, 2, ...

    `size` is None for a countable collection. Indices are 1-based, as in the paper's L_1, L_2, ...
    """

    name: str
    languages: tuple[Language, ...] = ()
    language_at: Callable[[int], Language] | None = None
    size: int | None = None

    def __post_init__(self) -> None:
        if self.language_at is None:
            if not self.languages:
                raise ProceedingsError(f"collection '{self.name}' is empty; give at least one language")
            object.__setattr__(self, "size", len(self.languages))
        elif self.languages:
            raise ProceedingsError(f"collection '{self.name}': give a list of languages or language_at, not both")

    @classmethod
    def finite(cls, name: str, languages: Sequence[Language]) -> "Collection":
        return cls(name, tuple(languages))

    @classmethod
    def countable(cls, name: str, language_at: Callable[[int], Language]) -> "Collection":
        return cls(name, language_at=language_at)

    @property
    def is_finite(self) -> bool:
        return self.size is not None

    def __getitem__(self, index: int) -> Language:
        """L_index (1-based)."""
        if self.is_finite:
            if not 1 <= index <= self.size:
                raise ProceedingsError(f"collection '{self.name}' has languages 1..{self.size}, not {index}")
            return self.languages[index - 1]
        try:
            language = self.language_at(index)
        except Exception as err:
            raise ProceedingsError(
                f"collection '{self.name}' is declared countable but cannot enumerate language {index} "
                f"({type(err).__name__}: {err}); language_at(i) must return a Language for every i >= 1"
            ) from None
        if not isinstance(language, Language):
            raise ProceedingsError(
                f"collection '{self.name}' is declared countable but language_at({index}) returned "
                f"{type(language).__name__}, not a Language"
            )
        return language

    def prefix(self, k: int) -> tuple[Language, ...]:
        """L_1..L_k (all of a finite collection when k exceeds its size)."""
        k = k if not self.is_finite else min(k, self.size)
        return tuple(self[i] for i in range(1, k + 1))


def _as_integers(elements) -> np.ndarray:
    """An int64 array when every element fits, else an object array of Python ints."""
    if isinstance(elements, np.ndarray) and elements.dtype.kind in "iu":
        return elements.astype(np.int64, copy=False)
    items = list(elements)
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in items):
        return np.array([v if isinstance(v, (int, np.integer)) else -1 for v in items], dtype=object)
    if all(-(2**62) < int(v) < 2**62 for v in items):
        return np.array(items, dtype=np.int64)
    return np.array([int(v) for v in items], dtype=object)


def _uniform_big(level: int, rng: np.random.Generator) -> int:
    """A uniform integer in [2**level, 2**(level+1)), exact for any level (Python big ints)."""
    words = (level + 63) // 64 + 1
    raw = int.from_bytes(rng.bytes(8 * words), "little")
    return 2**level + raw % (2**level)
