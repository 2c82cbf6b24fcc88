"""The spec's instance families F1-F6 (spec §4), each with exact ground truth.

An `Instance` is a collection, a distribution D and what the exact calculators may use:
- a `Reduction` per task when every score *difference* depends on the sample through one integer
  statistic Y with an exact law (binomial or a ±1 walk); the error is then a sum over Y's values,
  O(n) per point (spec §2.5's "FFT" path). Each reduction is checked against full multinomial
  enumeration in the tests;
- `competitors` for countable families: the target's margin over competitor j is a ±1 walk, and
  the error lies between the largest and the sum of the pairwise terms (F3, G2 identification);
- `rival` for countable generation (G2): a language disjoint from the target, whose margin decides
  generation up to exact two-sided bounds (exact.generation_sandwich_log_error).

Languages of F1-F3 are `AtomUnion`s (atom ids below), F4 are progressions, F6 regular languages.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.dplang.distributions import AtomDistribution, Distribution, EmpiricalStrings, ProgressionMixture
from proceedings.dplang.languages import AtomSet, AtomUnion, Collection, Language, Progression, RegularLanguage
from proceedings.dplang.laws import binomial_law, step_walk_law
from proceedings.dplang.objectives import Target, agnostic_target
from proceedings.dplang.scores import CellCounts


@dataclass(frozen=True)
class Reduction:
    """Score differences depend on the data only through Y; `cells(y, n)` is a sample with that Y."""

    law: Callable[[int], tuple[np.ndarray, np.ndarray]]  # n -> (values of Y, log P(Y = value))
    patterns: np.ndarray  # (C, K) cells of the representative samples
    columns: Callable[[np.ndarray, int], Sequence[np.ndarray]]  # (y, n) -> count of each cell

    def cells(self, y: np.ndarray, n: int) -> CellCounts:
        return CellCounts(self.patterns, np.stack(self.columns(y, n), axis=-1), n)


@dataclass(frozen=True)
class Instance:
    name: str
    collection: Collection
    distribution: Distribution
    description: str
    horizon: int | None = None  # countable collections: the target is decided among L_1..L_horizon
    tail_sup: float | None = None  # sup of coverages beyond the horizon
    reductions: Mapping[str, Reduction] = field(default_factory=dict)
    competitors: Callable[[int], tuple[float, float]] | None = None  # j -> (p_plus, p_minus) of W_j
    rival: int | None = None  # countable generation: the language disjoint from the target (exact.py)

    @functools.cached_property
    def target(self) -> Target:
        return agnostic_target(self.collection, self.distribution, self.horizon, self.tail_sup)

    @property
    def target_languages(self) -> list[Language]:
        return [self.collection[i] for i in self.target.indices]


def _walk_reduction(p_plus: float, p_minus: float, plus: Sequence[bool], minus: Sequence[bool],
                    rest: Sequence[bool]) -> Reduction:
    """Y = (count in the + cell) - (count in the - cell); the rest of the sample sits in `rest`."""
    return Reduction(
        law=lambda n: step_walk_law(n, p_plus, p_minus),
        patterns=np.array([plus, minus, rest], dtype=bool),
        columns=lambda y, n: (np.maximum(y, 0), np.maximum(-y, 0), n - np.abs(y)),
    )


def _count_reduction(p: float, counted: Sequence[bool], rest: Sequence[bool]) -> Reduction:
    """Y = count in one cell, Binomial(n, p); the rest of the sample sits in `rest`."""
    return Reduction(
        law=lambda n: binomial_law(n, p),
        patterns=np.array([counted, rest], dtype=bool),
        columns=lambda y, n: (y, n - y),
    )


def _outside(*masses: float) -> float:
    rest = 1.0 - sum(masses)
    if rest < -1e-12 or any(m < 0 for m in masses):
        raise ProceedingsError(f"masses {masses} must be >= 0 and sum to at most 1 (the rest lies outside)")
    return max(rest, 0.0)


def two_language(p_a: float = 0.35, p_b: float = 0.30, p_c: float = 0.25) -> Instance:
    """F1: L1 = a ∪ b, L2 = b ∪ c; atoms a (0), b (1), c (2), z (3, outside both).

    Scores are N_1, N_2 (no inclusions): identification is decided by W = N_a - N_c.
    """
    p_z = _outside(p_a, p_b, p_c)
    collection = Collection.finite("F1", [AtomUnion.of([0, 1], "a∪b"), AtomUnion.of([1, 2], "b∪c")])
    reduction = _walk_reduction(p_a, p_c, (True, False), (False, True), (False, False))
    return Instance("f1", collection, AtomDistribution({0: p_a, 1: p_b, 2: p_c, 3: p_z}, "F1"),
                    f"two languages, atoms a={p_a}, b={p_b}, c={p_c}, outside={p_z:.3g}",
                    reductions={"identification": reduction})


def disjoint_pair(p_a: float = 0.35, p_c: float = 0.25) -> Instance:
    """G1: L1 = a, L2 = c disjoint (atoms 0, 1; z = 2 outside): generation must pick a side.

    With an infinite L1 ∩ L2 (as in F1) the menu item L1 ∩ L2 lies in both languages and generation
    never errs; disjoint languages make generation as hard as deciding which covers more.
    """
    p_z = _outside(p_a, p_c)
    collection = Collection.finite("G1", [AtomUnion.of([0], "a"), AtomUnion.of([1], "c")])
    reduction = _walk_reduction(p_a, p_c, (True, False), (False, True), (False, False))
    return Instance("g1", collection, AtomDistribution({0: p_a, 1: p_c, 2: p_z}, "G1"),
                    f"two disjoint languages, masses {p_a} and {p_c}, outside={p_z:.3g}",
                    reductions={"identification": reduction, "generation": reduction})


def nested(q1: float = 0.4, q2: float = 0.3, q3: float = 0.0) -> Instance:
    """F2: L1 ⊂ L2 ⊂ L3 (atoms A1=0, A2=1, A3=2, outside=3); with q3 = 0, L2 and L3 both attain c*
    and the inclusion-minimal L2 is the target (tests the minimality rule)."""
    q_z = _outside(q1, q2, q3)
    collection = Collection.finite("F2", [AtomUnion.of([0], "A1"), AtomUnion.of([0, 1], "A1∪A2"),
                                          AtomUnion.of([0, 1, 2], "A1∪A2∪A3")])
    reductions = {}
    if q3 == 0:  # all score differences are functions of N_A2 (see README, "reductions")
        reductions["identification"] = _count_reduction(q2, (False, True, True), (True, True, True))
    return Instance("f2", collection, AtomDistribution({0: q1, 1: q2, 2: q3, 3: q_z}, "F2"),
                    f"nested L1 ⊂ L2 ⊂ L3, masses {q1}, {q2}, {q3}, outside={q_z:.3g}",
                    reductions=reductions)


def realizable(q1: float = 0.5) -> Instance:
    """F5: supp D = L2 of F2 (no mass outside, none on L3 \\ L2): the standard realizable case."""
    instance = nested(q1, 1.0 - q1, 0.0)
    return Instance("f5", instance.collection, instance.distribution,
                    f"realizable: supp D = L2, masses {q1} on L1 and {1 - q1:.3g} on L2 \\ L1",
                    reductions=instance.reductions)


def arithmetic_progressions(eta: float = 0.2, stop: float = 0.25) -> Instance:
    """F4: L = 2ℕ, 3ℕ, 6ℕ, 12ℕ; D = (1-η)·6·Geometric + η·(6·Geometric + 1).

    2ℕ, 3ℕ and 6ℕ all have coverage 1-η; the target is the minimal one, 6ℕ. Every score
    difference depends only on the count of the cell 6 (mod 12), Binomial(n, (1-η)/(2-stop)).
    """
    collection = Collection.finite("F4", [Progression(2), Progression(3), Progression(6), Progression(12)])
    distribution = ProgressionMixture(((1 - eta, 6, 0), (eta, 6, 1)), stop, "F4")
    p_odd_multiple = (1 - eta) / (2 - stop)  # P(x = 6k with k odd)
    reduction = _count_reduction(p_odd_multiple, (True, True, True, False), (True, True, True, True))
    return Instance("f4", collection, distribution,
                    f"progressions 2N, 3N, 6N, 12N; D on multiples of 6 with contamination eta={eta}",
                    reductions={"identification": reduction})


def countable_approach(gap: float = 0.4, base: float = 0.3, levels: int = 10_000) -> Instance:
    """F3: a countable collection with no runner-up gap: c_j = c* - gap/(j+1) for j != 3.

    Atoms: base 0, outside 1, P∞ 2, Q∞ 3, P-level l -> 2l+2, Q-level l -> 2l+3 (l = 1..levels).
    L_3 = base ∪ P (the target); L_j = base ∪ (P-levels < j) ∪ Q_j with P_j, Q_j the levels >= j,
    D(P_j) = 2·gap/(j+1), D(Q_j) = gap/(j+1) (the ∞ atoms carry the tail beyond `levels`).
    No language contains another, so scores are counts and the target's margin over L_j is the
    walk W_j = |S ∩ P_j| - |S ∩ Q_j|: error ≈ exp(-Θ(n / k(n))) for a prefix of k(n) languages.
    """
    z = _outside(base, 1.5 * gap)
    ell = np.arange(1, levels + 1)
    level_mass = gap / ((ell + 1) * (ell + 2))
    masses = {0: base, 1: z, 2: 2 * gap / (levels + 2), 3: gap / (levels + 2)}
    masses.update({int(2 * l + 2): float(2 * m) for l, m in zip(ell, level_mass)})
    masses.update({int(2 * l + 3): float(m) for l, m in zip(ell, level_mass)})
    target = AtomUnion(AtomSet(frozenset({0, 2}), 4, 2, frozenset({0})), "base∪P")

    def language_at(j: int) -> Language:
        if j < 1:
            raise IndexError(f"languages are numbered from 1, not {j}")
        if j == 3:
            return target
        p_levels = {2 * l + 2 for l in range(1, j)}
        return AtomUnion(AtomSet(frozenset({0, 3} | p_levels), 2 * j + 3, 2, frozenset({1})), f"base∪P<{j}∪Q{j}")

    def competitor(j: int) -> tuple[float, float]:
        level = min(j, levels + 1)
        return 2 * gap / (level + 1), gap / (level + 1)

    collection = Collection.countable("F3", language_at)
    return Instance("f3", collection, AtomDistribution(masses, "F3"),
                    f"countable, c_j = c* - {gap}/(j+1), target L3, base={base}",
                    horizon=8, tail_sup=base + gap, competitors=competitor)


def countable_generation(first_p: float = 0.15, first_q: float = 0.01, margin: float = 0.1,
                         levels: int = 10_000) -> Instance:
    """G2: one countable collection on which identification is exp(-o(n)) and generation exp(-Θ(n)).

    Atoms: outside 0, P∞ 1, Q∞ 2, P-level l -> 2l+1, Q-level l -> 2l+2 (l = 1..levels). The target
    L_3 = P (every P atom); L_j = P-levels < j ∪ Q-levels >= j ∪ Q∞ for j != 3. With h_j = D(Q_{>=j})
    (h_2 = `margin`/2, h_j = 3h_2/(j+1)) and D(P_{>=j}) = 2h_j for j >= 2, c_3 - c_j = h_j -> 0: no
    runner-up gap, so identification is F3's problem, exp(-Θ(n/k(n))). Generation only has to land
    inside L_3: the menu item P_1 = L_2 ∩ L_3 lies in every language but L_1 = Q (disjoint from L_3),
    so generation is decided by W = N_3 - N_1, a walk with a constant drift D(P) - D(Q): exp(-Θ(n)).
    The first level carries most of P (`first_p`) and little of Q (`first_q`), so that the runner-up
    among valid menu items (V = N_2 - N_1, propose-test-release's gap) decays faster than W.
    """
    h2 = margin / 2
    z = _outside(first_p, 2 * h2, first_q, h2)
    ell = np.arange(2, levels + 1)
    level_mass = 3 * h2 / ((ell + 1) * (ell + 2))  # h_l - h_{l+1}
    tail = 3 * h2 / (levels + 2)  # h_{levels+1}: carried by the ∞ atoms
    masses = {0: z, 1: 2 * tail, 2: tail, 3: first_p, 4: first_q}
    masses.update({int(2 * l + 1): float(2 * m) for l, m in zip(ell, level_mass)})
    masses.update({int(2 * l + 2): float(m) for l, m in zip(ell, level_mass)})
    target = AtomUnion(AtomSet(frozenset({1}), 3, 2, frozenset({1})), "P")

    def language_at(j: int) -> Language:
        if j < 1:
            raise IndexError(f"languages are numbered from 1, not {j}")
        if j == 3:
            return target
        p_levels = {2 * l + 1 for l in range(1, j)}
        return AtomUnion(AtomSet(frozenset({2} | p_levels), 2 * j + 2, 2, frozenset({0})), f"P<{j}∪Q>={j}")

    def q_tail(j: int) -> float:  # h_j = D(Q levels >= j ∪ Q∞)
        return first_q + h2 if j <= 1 else 3 * h2 / (min(j, levels + 1) + 1)

    def competitor(j: int) -> tuple[float, float]:  # W_j = N_3 - N_j = |S ∩ P_{>=j}| - |S ∩ Q_{>=j}|
        return (first_p + 2 * h2 if j <= 1 else 2 * q_tail(j)), q_tail(j)

    collection = Collection.countable("G2", language_at)
    return Instance("g2", collection, AtomDistribution(masses, "G2"),
                    f"countable, c_j = c* - h_j with h_j -> 0, target L3 = P, L1 = Q disjoint from it "
                    f"(D(P) = {first_p + 2 * h2:.3g}, D(Q) = {first_q + h2:.3g})",
                    horizon=8, tail_sup=first_p + 2 * h2, competitors=competitor, rival=1)


def regex_family(patterns: Sequence[str], words: Sequence[str], alphabet: str | None = None,
                 name: str = "F6") -> Instance:
    """F6: regular languages (automata-lib DFAs) and the empirical distribution of a word list."""
    if not patterns:
        raise ProceedingsError("give at least one regular expression")
    alphabet = alphabet or "".join(sorted({ch for w in words for ch in w} | set("abcdefghijklmnopqrstuvwxyz")))
    languages = [RegularLanguage(p, alphabet) for p in patterns]
    return Instance(name.lower(), Collection.finite(name, languages), EmpiricalStrings(tuple(words), name),
                    f"{len(patterns)} regular languages, {len(words)} words")


FAMILIES: dict[str, Callable[[], Instance]] = {
    "f1": two_language, "f2": nested, "f3": countable_approach, "f4": arithmetic_progressions,
    "f5": realizable, "g1": disjoint_pair, "g2": countable_generation,
}


def instance(name: str) -> Instance:
    """A spec family with its default parameters, by name (f1..f5, g1, g2)."""
    try:
        return FAMILIES[name.lower()]()
    except KeyError:
        raise ProceedingsError(f"unknown family '{name}'; choose one of: {', '.join(FAMILIES)}") from None
