"""Sufficient statistics of a sample and the score functions of spec §2.2-2.3.

A sample enters every algorithm only through `CellCounts`: how many of its elements fall in each
*cell* (a distinct pattern of membership in the prefix languages L_1..L_K). N_i, the excess e_i
and the menu scores are linear maps of the cell counts followed by min/max, so the same code scores
one real sample, a batch of Monte Carlo samples, or every count vector of an exact enumeration.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.dplang.languages import Language


@dataclass(frozen=True)
class CellCounts:
    """counts[..., c] = number of sample elements in cell c; patterns[c, i] = cell c ⊆ L_i."""

    patterns: np.ndarray  # (C, K) bool
    counts: np.ndarray  # (..., C) int
    n: int


def summarize(samples: np.ndarray, languages: Sequence[Language]) -> CellCounts:
    """(..., n) samples -> cell counts over the membership patterns that occur."""
    samples = np.asarray(samples)
    if samples.shape[-1] == 0:
        raise ProceedingsError("the sample is empty; identification and generation need n >= 1 examples")
    lead, n = samples.shape[:-1], samples.shape[-1]
    flat = samples.reshape(-1)
    member = np.stack([lang.contains_many(flat) for lang in languages], axis=1)  # (T*n, K)
    if member.shape[1] <= 62:  # rows as bit codes: np.unique on integers is much faster than on rows
        codes, cell_of = np.unique(member @ (1 << np.arange(member.shape[1], dtype=np.int64)),
                                   return_inverse=True)
        patterns = (codes[:, None] >> np.arange(member.shape[1])) & 1 == 1
    else:
        patterns, cell_of = np.unique(member, axis=0, return_inverse=True)
    trials = int(np.prod(lead)) if lead else 1
    row = np.repeat(np.arange(trials), n)
    counts = np.bincount(row * len(patterns) + cell_of.reshape(-1), minlength=trials * len(patterns))
    return CellCounts(patterns, counts.reshape(*lead, len(patterns)), n)


def language_counts(cells: CellCounts) -> np.ndarray:
    """N_i(S) = |{t : x_t ∈ L_i}| with multiplicity, shape (..., K)."""
    return cells.counts @ cells.patterns.astype(np.int64)


def proper_subsets(languages: Sequence[Language]) -> np.ndarray:
    """below[j, i] = L_j ⊊ L_i (data-independent; needs a decidable inclusion test)."""
    k = len(languages)
    below = np.zeros((k, k), dtype=bool)
    for i in range(k):
        for j in range(k):
            below[j, i] = i != j and languages[j].is_proper_subset(languages[i])
    return below


def excess(cells: CellCounts, below: np.ndarray) -> np.ndarray:
    """e_i(S) = min over L_j ⊊ L_i of |S ∩ (L_i \\ L_j)|, or n when L_i has no proper subset."""
    out = np.full(cells.counts.shape[:-1] + (below.shape[1],), cells.n, dtype=np.int64)
    for i in range(below.shape[1]):
        for j in np.flatnonzero(below[:, i]):
            only_i = cells.patterns[:, i] & ~cells.patterns[:, j]
            out[..., i] = np.minimum(out[..., i], cells.counts @ only_i.astype(np.int64))
    return out


def identification_scores(cells: CellCounts, below: np.ndarray, threshold: int) -> np.ndarray:
    """v_i(S) = N_i(S) - max(0, θ_n·n - e_i(S)) (spec §2.2), shape (..., K).

    A language that some proper sublanguage explains up to fewer than θ_n·n samples pays for it:
    this is what makes the inclusion-minimal optimum win.
    """
    return language_counts(cells) - np.maximum(0, threshold - excess(cells, below))


def identification_sensitivity(below: np.ndarray) -> int:
    """Replacing one sample moves N_i by <= 1 and the penalty by <= 1; without inclusions only N_i."""
    return 2 if below.any() else 1


def menu_scores(cells: CellCounts, escapes: np.ndarray) -> np.ndarray:
    """s_G(S) = -max{N_i(S) : G ⊄ L_i} (0 if G lies inside every prefix language), shape (..., M).

    Sensitivity 1: each N_i moves by at most one.
    """
    counts = language_counts(cells)
    masked = np.where(escapes, counts[..., None, :], 0)  # (..., M, K)
    return -masked.max(axis=-1)
