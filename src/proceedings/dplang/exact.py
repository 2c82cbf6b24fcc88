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
- `generation_sandwich_log_error`: countable generation (G2), exact two-sided bounds from the laws
  of the target's margin over a disjoint rival and of the runner-up valid menu item's margin.
Each returns (log error, log lower end, log upper end); the ends coincide when exact.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln, logsumexp

from proceedings.core.errors import ProceedingsError
from proceedings.dplang.distributions import AtomDistribution
from proceedings.dplang.families import Instance
from proceedings.dplang.identification import prefix_size
from proceedings.dplang.languages import AtomUnion
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


def _language_walk(instance: Instance, plus: AtomUnion, minus: AtomUnion) -> tuple[float, float]:
    """(D(plus \\ minus), D(minus \\ plus)): the step law of N_plus - N_minus, from the exact atom masses."""
    if not isinstance(instance.distribution, AtomDistribution):
        raise ProceedingsError(f"instance '{instance.name}': the generation sandwich needs a distribution over atoms")
    masses = instance.distribution.masses
    ids, mass = np.array(list(masses)), np.array(list(masses.values()))
    in_plus, in_minus = plus.atoms.contains_many(ids), minus.atoms.contains_many(ids)
    return float(mass @ (in_plus & ~in_minus)), float(mass @ (in_minus & ~in_plus))


def _generation_structure(instance: Instance, plan) -> dict:
    """The menu facts the G2 bounds rest on, checked on the plan rather than assumed.

    With the rival L_r disjoint from the target L_t every menu item escapes L_r or L_t, so every
    score is <= -min(N_r, N_t). Needed: an item inside L_t escaping L_r alone (`best`, score -N_r);
    an invalid item escaping L_t alone (score -N_t); every invalid item escapes L_t; and a language
    L_m escaped by every other item inside L_t (so propose-test-release's gap is >= min(W, V⁺)
    with V = N_m - N_r).
    """
    (t,), r = instance.target.indices, instance.rival
    languages, escapes = plan.languages, plan.escapes
    valid = plan.valid_fraction(instance.target.indices)
    if t > len(languages) or r > len(languages) or languages[r - 1].intersect(languages[t - 1]) is not None:
        raise ProceedingsError(f"instance '{instance.name}': L_{r} must be in the prefix and disjoint from the target")
    escaped = [set(np.flatnonzero(row) + 1) for row in escapes]
    inside = [item.is_subset(languages[t - 1]) for item in plan.menu]
    best = [g for g, e in enumerate(escaped) if inside[g] and e == {r}]
    worst = [g for g, e in enumerate(escaped) if valid[g] == 0 and e == {t}]
    others = [e - {r} for g, e in enumerate(escaped) if inside[g] and g not in best]
    common = sorted(set.intersection(*others)) if others else [None]
    if not best or not worst or not common or not all(t in e for e, v in zip(escaped, valid) if v < 1):
        raise ProceedingsError(f"instance '{instance.name}' lacks the menu structure of the generation sandwich")
    return {"target": t, "rival": r, "menu": len(plan.menu), "invalid": int((valid < 1).sum()),
            "runner_up": common[0]}


def generation_sandwich_log_error(instance: Instance, learner: Learner, n: int) -> tuple[float, float, float]:
    """Exact bounds on countable generation's error from the laws of W = N_t - N_r and V = N_m - N_r.

    Per selector (scores s_G = -max{N_i : G escapes L_i}, M menu items, M' of them invalid):
    argmax: P(W < 0) <= error <= P(W <= 0) (ties: the first item wins);
    exponential mechanism at scale a: E[e^{-aW⁺}]/M <= error <= E[min(1, M'e^{-aW})] (the invalid
    item escaping L_t alone against all M items, each scoring <= -min(N_r, N_t); every invalid item
    against the valid best);
    propose-test-release: the gap is min(W, V⁺) when W > 0, so error = P(W <= 0) +
    E[1{W > 0}·P(Z <= A - q(min(W, V⁺)))], bounded by dropping V (below) and by adding
    E[P(Z <= A - q(V⁺))] (above).
    """
    plan = learner.plan(instance.collection, n)
    shape = _generation_structure(instance, plan)
    languages = plan.languages
    values, log_w = step_walk_law(n, *_language_walk(instance, languages[shape["target"] - 1],
                                                     languages[shape["rival"] - 1]))
    selector = learner.selector
    if isinstance(selector, Argmax):
        low, high = logsumexp(log_w[values < 0]), logsumexp(log_w[values <= 0])
    elif isinstance(selector, ExponentialMechanism):
        a = selector.scale(plan.sensitivity)
        low = logsumexp(log_w - a * np.maximum(values, 0)) - math.log(shape["menu"])
        high = logsumexp(log_w + np.minimum(0.0, math.log(shape["invalid"]) - a * values))
    elif isinstance(selector, ProposeTestRelease):
        held = lambda v: selector.noise.log_cdf(selector.noise.bound - selector.stability(  # noqa: E731
            np.stack([np.maximum(v, 0), np.zeros(len(v))], axis=-1), plan.sensitivity))
        low = np.logaddexp(logsumexp(log_w[values <= 0]),
                           logsumexp(log_w[values > 0] + held(values[values > 0])))
        high = low
        if shape["runner_up"] is not None:
            v_values, log_v = step_walk_law(n, *_language_walk(instance, languages[shape["runner_up"] - 1],
                                                               languages[shape["rival"] - 1]))
            high = min(0.0, np.logaddexp(low, logsumexp(log_v + held(v_values))))
    else:
        raise ProceedingsError(f"no generation sandwich for selector '{selector.name}'")
    return float(high), float(low), float(high)


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
    if learner.task == "generation" and instance.rival is not None:
        return generation_sandwich_log_error(instance, learner, n)
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
