"""The agnostic objectives: the project's own definitions (spec §2.1, [inferred]).

The paper's abstract does not define its agnostic targets; these are ours, chosen to be consistent
with its stated rates and to reduce to the standard ones when D is supported on a language K:

- coverage c_i = D(L_i); best coverage c* = max_i c_i, which must be *attained*;
- optimal set O = {i : c_i = c*};
- **identification target** T(D) = the inclusion-minimal members of O ("the tightest language
  explaining the most data"); identification errs when its answer is not in T(D) (⊥ errs);
- **generation target**: an element x with x ∉ S and x ∈ ∩_{i ∈ T(D)} L_i; generation errs
  otherwise (⊥ errs). In the realizable case T(D) = {K}: an unseen element of K.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.dplang.distributions import Distribution
from proceedings.dplang.languages import Collection, Language
from proceedings.dplang.learner import BOTTOM

COVERAGE_TOLERANCE = 1e-12


def coverages(distribution: Distribution, languages: Sequence[Language]) -> np.ndarray:
    """c_i = D(L_i) for each language, exactly (from the distribution's atoms)."""
    atoms = distribution.atoms(languages)
    return atoms.masses @ atoms.patterns(languages)


@dataclass(frozen=True)
class Target:
    """T(D) and what it was computed from; indices are 1-based."""

    coverages: tuple[float, ...]
    best: float
    optimal: tuple[int, ...]
    indices: tuple[int, ...]


def agnostic_target(collection: Collection, distribution: Distribution, horizon: int | None = None,
                    tail_sup: float | None = None) -> Target:
    """T(D) over L_1..L_horizon; `tail_sup` bounds the coverage of every later language.

    A countable collection needs both: the target is defined only when the best coverage is
    attained, i.e. no later language reaches above the best one found within the horizon.
    """
    if not collection.is_finite and (horizon is None or tail_sup is None):
        raise ProceedingsError(
            f"collection '{collection.name}' is countable: give a horizon and tail_sup (the supremum of "
            "coverages beyond it) so that the best coverage is known to be attained"
        )
    languages = collection.prefix(horizon or collection.size)
    cover = coverages(distribution, languages)
    best = float(cover.max())
    if tail_sup is not None and tail_sup > best + COVERAGE_TOLERANCE:
        raise ProceedingsError(
            f"the best coverage is not attained in '{collection.name}' (sup {tail_sup:.6g} beyond "
            f"L_{len(languages)}, best attained {best:.6g}): the identification objective is undefined"
        )
    optimal = [i for i, c in enumerate(cover) if c >= best - COVERAGE_TOLERANCE]
    minimal = [i for i in optimal
               if not any(j != i and languages[j].is_proper_subset(languages[i]) for j in optimal)]
    return Target(tuple(float(c) for c in cover), best, tuple(i + 1 for i in optimal),
                  tuple(i + 1 for i in minimal))


def identification_correct(answer, target: Target) -> bool:
    return answer is not BOTTOM and answer in target.indices


def generation_correct(answer, sample: Sequence, target_languages: Sequence[Language]) -> bool:
    """Unseen and inside every target language."""
    if answer is BOTTOM or answer in set(np.asarray(sample).tolist()):
        return False
    return all(answer in language for language in target_languages)
