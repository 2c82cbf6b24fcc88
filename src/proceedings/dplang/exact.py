"""Exact error probabilities, in log space (spec §2.5).

error_n = P(answer wrong) = E_S[ Σ_m P(candidate m | S) · (1 - valid_m) ], where P(· | S) is the
selector's closed-form law (argmax / softmax / truncated-Laplace test) and valid_m the exact
probability that candidate m's answer is right. Three ways to take the expectation over S ~ D^n:

- `reduced_log_error`: over the law of an instance's decisive statistic (binomial or ±1 walk),
  O(n) per point; exact.
- `enumerated_log_error`: over every multinomial count vector of the cells with mass; exact, for
  small n (the check on the reductions).
- `sandwich_log_error`: for countable families, the failure event is a union over competitors j of
  events about the target's margin W_j; max_j P(E_j) <= error <= Σ_j P(E_j), both exact.
Each returns (log error, log lower end, log upper end); the ends coincide when exact.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln, logsumexp

from proceedings.core.errors import ProceedingsError
from proceedings.dplang.families import Instance
from proceedings.dplang.identification import prefix_size
from proceedings.dplang.laws import step_walk_law
from proceedings.dplang.learner import Learner, Plan
from proceedings.dplang.mechanisms import Argmax, ExponentialMechanism, ProposeTestRelease
from proceedings.dplang.scores import CellCounts

ENUMERATION_LIMIT = 3_000_000  # count vectors; beyond this use a reduction or Monte Carlo


def log_failure(learner: Learner, plan: Plan, cells: CellCounts, valid: np.ndarray) -> np.ndarray:
    """(...,) log P(wrong answer | cell counts), summed stably in log space (⊥ is always wrong)."""
    log_p = learner.log_output_probs(plan, cells)
    with np.errstate(divide="ignore"):
        log_wrong = np.log1p(-np.concatenate([valid, [0.0]]))
    return logsumexp(log_p + log_wrong, axis=-1)


def reduced_log_error(instance: Instance, learner: Learner, n: int) -> tuple[float, float, float]:
    reduction = instance.reductions.get(learner.task)
    if reduction is None:
        raise ProceedingsError(f"instance '{instance.name}' has no exact reduction for {learner.task}; "
                               "use method 'enumerate' (small n) or 'mc'")
    plan = learner.plan(instance.collection, n)
    values, log_pmf = reduction.law(n)
    keep = np.isfinite(log_pmf)
    cells = reduction.cells(values[keep], n)
    fail = log_failure(learner, plan, cells, plan.valid_fraction(instance.target.indices))
    total = float(logsumexp(log_pmf[keep] + fail))
    return total, total, total


def compositions(n: int, parts: int) -> np.ndarray:
    """Every vector of `parts` non-negative integers summing to n, shape (count, parts)."""
    cache: dict[tuple[int, int], np.ndarray] = {}

    def build(total: int, k: int) -> np.ndarray:
        if k == 1:
            return np.array([[total]], dtype=np.int64)
        if (total, k) not in cache:
            blocks = []
            for first in range(total + 1):
                rest = build(total - first, k - 1)
                blocks.append(np.column_stack([np.full(len(rest), first, dtype=np.int64), rest]))
            cache[(total, k)] = np.concatenate(blocks)
        return cache[(total, k)]

    return build(n, parts)


def cell_masses(instance: Instance, plan: Plan) -> tuple[np.ndarray, np.ndarray]:
    """(patterns (C, K), masses (C,)) of the cells with positive mass, from the exact atoms."""
    atoms = instance.distribution.atoms(plan.languages)
    patterns, cell_of = np.unique(atoms.patterns(plan.languages), axis=0, return_inverse=True)
    masses = np.bincount(cell_of.reshape(-1), weights=atoms.masses, minlength=len(patterns))
    keep = masses > 0
    return patterns[keep], masses[keep]


def enumerated_log_error(instance: Instance, learner: Learner, n: int) -> tuple[float, float, float]:
    plan = learner.plan(instance.collection, n)
    patterns, masses = cell_masses(instance, plan)
    count = math.comb(n + len(masses) - 1, len(masses) - 1)
    if count > ENUMERATION_LIMIT:
        raise ProceedingsError(
            f"exact enumeration at n={n} needs {count:,} count vectors (limit {ENUMERATION_LIMIT:,}); "
            "use --method mc (Monte Carlo) or an instance with a reduction"
        )
    counts = compositions(n, len(masses))
    log_pmf = gammaln(n + 1) - gammaln(counts + 1).sum(axis=1) + counts @ np.log(masses)
    fail = log_failure(learner, plan, CellCounts(patterns, counts, n), plan.valid_fraction(instance.target.indices))
    total = float(logsumexp(log_pmf + fail))
    return total, total, total


def _log_cdf(log_pmf: np.ndarray) -> np.ndarray:
    return np.logaddexp.accumulate(log_pmf)


def sandwich_log_error(instance: Instance, learner: Learner, n: int) -> tuple[float, float, float]:
    """Exact bounds max_j P(E_j) <= error <= Σ_j P(E_j) for a countable instance (spec F3).

    The instance's competitors contain no language inside another, so scores are counts
    (sensitivity 1) and the target t beats L_j by the walk W_j. The event "L_j makes the answer
    wrong" is, per selector: W_j below the tie threshold (argmax); the pairwise softmax (its
    expectation bounds P(answer = j) above and P(answer != t) below); W_j <= 2m for the test's
    noise level m (propose-test-release: released iff min_j W_j > 2·floor(A - Z + 1)).
    """
    if instance.competitors is None or learner.task != "identification":
        raise ProceedingsError(f"instance '{instance.name}' has no competitor walks for the sandwich bounds")
    (target,) = instance.target.indices
    k = prefix_size(instance.collection, n, learner.prefix)
    if target > k:
        return 0.0, 0.0, 0.0  # the target is not even in the prefix: always wrong
    rivals = [j for j in range(1, k + 1) if j != target]
    terms = np.array([_pairwise_log_failures(learner, n, *instance.competitors(j), j < target) for j in rivals])
    if isinstance(learner.selector, ProposeTestRelease):
        level_log_mass = _noise_level_log_masses(learner.selector)  # (levels,)
        low = float(logsumexp(level_log_mass + terms.max(axis=0)))
        high = float(logsumexp(level_log_mass + np.minimum(0.0, logsumexp(terms, axis=0))))
    else:
        low, high = float(terms.max()), float(min(0.0, logsumexp(terms)))
    return high, low, high


def _pairwise_log_failures(learner: Learner, n: int, p_plus: float, p_minus: float, rival_first: bool):
    """log P(E_j) for one competitor (an array over noise levels for propose-test-release)."""
    values, log_pmf = step_walk_law(n, p_plus, p_minus)
    selector = learner.selector
    if isinstance(selector, Argmax):
        return float(logsumexp(log_pmf[values <= (0 if rival_first else -1)]))
    if isinstance(selector, ExponentialMechanism):
        return float(logsumexp(log_pmf - np.logaddexp(0.0, selector.scale(1) * values)))
    if isinstance(selector, ProposeTestRelease):
        levels = np.arange(1, _level_count(selector) + 1)
        return _log_cdf(log_pmf)[np.clip(2 * levels + n, 0, 2 * n)]
    raise ProceedingsError(f"no sandwich bound for selector '{selector.name}'")


def _level_count(selector: ProposeTestRelease) -> int:
    return int(math.floor(2 * selector.noise.bound + 1))


def _noise_level_log_masses(selector: ProposeTestRelease) -> np.ndarray:
    """log P(floor(A - Z + 1) = m) for m = 1..floor(2A + 1)."""
    noise = selector.noise
    m = np.arange(1, _level_count(selector) + 1)
    upper, lower = noise.log_cdf(noise.bound + 1 - m), noise.log_cdf(noise.bound - m)
    with np.errstate(divide="ignore", invalid="ignore"):
        return upper + np.log1p(-np.exp(lower - upper))
