"""Privacy audits: the privacy-loss bound tested exactly on neighbouring datasets (spec §8.1).

For a dataset S and a neighbour S' (one element replaced by any other element of the universe,
including elements D never draws), every selector's output law is known in closed form, so
- pure ε-DP holds iff max_o |log P(o | S) - log P(o | S')| <= ε for all neighbours;
- (ε, δ)-DP holds iff the hockey-stick divergence Σ_o max(0, P(o | S) - e^ε P(o | S')) <= δ.
`audit` checks *every* dataset of size n over the cells of the universe and every single
replacement, which includes the worst-case neighbours (moving an element from the winner's exclusive
region to the runner-up's; crossing the propose-test-release instability boundary q = 0 -> 1).
Two deliberately broken selectors prove that the audit can fail.

`class_audit` is the same audit, exhaustive over *equivalence classes* of datasets: every selector's
law depends on a dataset only through a few linear statistics of its cell counts (`law_key_rows`),
and a neighbouring pair is (R + e_s, R + e_t) for a dataset R of size n - 1 and cells s, t, so one
representative per class of R and one per distinct key row covers every pair exactly. That reaches
the n >= 2Δ(A + 2) where propose-test-release's release branch is taken (datasets with stability
q > A), far beyond enumerating datasets.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.dplang.exact import compositions
from proceedings.dplang.families import Instance
from proceedings.dplang.generation import GenerationPlan
from proceedings.dplang.identification import IdentificationPlan
from proceedings.dplang.languages import AtomUnion, Progression, cantor_pair
from proceedings.dplang.learner import Learner
from proceedings.dplang.mechanisms import ExponentialMechanism, ProposeTestRelease, TruncatedLaplace, first_argmax
from proceedings.dplang.scores import CellCounts

TOLERANCE = 1e-9
CLASS_LIMIT = 2_000_000  # representatives (classes × key rows) one class audit may score


@dataclass(frozen=True)
class OverspentExponential(ExponentialMechanism):
    """BROKEN on purpose: the exponential mechanism run at factor·ε (the audit still asks for ε)."""

    factor: float = 2.0
    name: str = "pure-overspent"

    def scale(self, sensitivity: float) -> float:
        return self.factor * self.eps / (2.0 * sensitivity)

    def guarantee(self, sensitivity):
        return f"NOT {self.eps:g}-DP (exponential mechanism at {self.factor:g}·eps, for audits)"


@dataclass(frozen=True)
class OverspentTest(ProposeTestRelease):
    """BROKEN on purpose: propose-test-release with the noise and threshold of factor·ε."""

    factor: float = 2.0
    name: str = "approx-overspent"

    @property
    def noise(self) -> TruncatedLaplace:
        return TruncatedLaplace(self.factor * self.eps, self.delta)

    def guarantee(self, sensitivity):
        return f"NOT ({self.eps:g}, {self.delta:g})-DP (test noise of {self.factor:g}·eps, for audits)"


@dataclass(frozen=True)
class NoiselessTest(ProposeTestRelease):
    """BROKEN on purpose: releases the argmax whenever q > 0, without noise."""

    name: str = "leaky-approx"

    def log_probs(self, scores, sensitivity):
        scores = np.asarray(scores, dtype=float)
        released = self.stability(scores, sensitivity) > 0
        log_p = np.full(scores.shape[:-1] + (scores.shape[-1] + 1,), -np.inf)
        choice = np.where(released, first_argmax(scores), scores.shape[-1])
        np.put_along_axis(log_p, choice[..., None], 0.0, axis=-1)
        return log_p

    def sample(self, scores, sensitivity, rng):
        return np.argmax(self.log_probs(scores, sensitivity), axis=-1)

    def guarantee(self, sensitivity):
        return "NOT private (deliberately broken propose-test-release, for audits)"


@dataclass(frozen=True)
class AuditResult:
    mechanism: str
    n: int
    eps: float
    delta: float
    datasets: int
    pairs: int
    max_privacy_loss: float  # max over neighbours and outputs of log P(o|S) - log P(o|S')
    max_hockey_stick: float  # max over neighbours of Σ_o max(0, P(o|S) - e^ε P(o|S'))
    worst_pair: tuple[list[int], list[int]]  # cell counts of the most violating neighbours
    score_range: float  # max over neighbours of max_i Δv_i - min_j Δv_j (Δv: the change of the scores)
    range_loss: float  # exponential mechanisms: scale × score_range, the loss's supremum over score spreads
    passed: bool
    max_release_probability: float = 1.0  # max over the datasets audited of P(not ⊥)

    def summary(self) -> dict:
        return {"mechanism": self.mechanism, "n": self.n, "eps": self.eps, "delta": self.delta,
                "datasets": self.datasets, "pairs": self.pairs, "max_privacy_loss": self.max_privacy_loss,
                "max_hockey_stick": self.max_hockey_stick, "score_range": self.score_range,
                "range_loss": self.range_loss, "max_release_probability": self.max_release_probability,
                "passed": self.passed}


def probe_elements(languages) -> list:
    """Elements realising every membership pattern of these languages that the universe has."""
    if all(isinstance(lang, Progression) for lang in languages):
        return list(range(math.lcm(*[lang.modulus for lang in languages])))  # patterns repeat mod lcm
    if all(isinstance(lang, AtomUnion) for lang in languages):
        last = max(lang.atoms.horizon + lang.atoms.period for lang in languages)
        return [cantor_pair(atom, 0) for atom in range(last + 1)]  # beyond: periodic, seen already
    return []  # other families: the distribution's atoms only


def universe_cells(instance: Instance, learner: Learner, n: int) -> np.ndarray:
    """(C, K) every membership pattern an element of the universe can have (zero-mass ones too)."""
    languages = learner.plan(instance.collection, n).languages
    elements = list(instance.distribution.atoms(languages).representatives) + probe_elements(languages)
    member = np.stack([lang.contains_many(elements) for lang in languages], axis=1)
    return np.unique(member, axis=0)


def neighbour_pairs(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (S, S') of datasets that differ by moving one element from one cell to another."""
    index = {tuple(row): i for i, row in enumerate(counts)}
    first, second = [], []
    cells = counts.shape[1]
    for i, row in enumerate(counts):
        for source in np.flatnonzero(row):
            for target in range(cells):
                if target != source:
                    moved = row.copy()
                    moved[source] -= 1
                    moved[target] += 1
                    first.append(i)
                    second.append(index[tuple(moved)])
    return np.array(first), np.array(second)


def privacy_losses(log_p: np.ndarray, log_q: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """Per pair: (max_o log P - log Q, hockey-stick divergence at ε); 0·log 0 conventions."""
    with np.errstate(invalid="ignore"):
        diff = log_p - log_q
    diff = np.where(np.isneginf(log_p), -np.inf, diff)  # outputs S never gives cannot leak
    loss = diff.max(axis=-1)
    hockey = np.maximum(0.0, np.exp(log_p) - math.exp(eps) * np.exp(log_q)).sum(axis=-1)
    return loss, hockey


def audit(instance: Instance, learner: Learner, n: int, eps: float, delta: float = 0.0) -> AuditResult:
    """Exhaustive audit over all datasets of size n (cell counts) and all single replacements.

    An exponential mechanism's loss on a pair is at most scale·(max_i Δv_i - min_j Δv_j), reached when
    the candidate with the smallest change dominates: small n keeps score spreads (and so the loss)
    small, so pure mechanisms must also keep scale × the largest realised score range within ε.
    """
    patterns = universe_cells(instance, learner, n)
    counts = compositions(n, len(patterns))
    first, second = neighbour_pairs(counts)
    return _judge(learner, learner.plan(instance.collection, n), CellCounts(patterns, counts, n), first, second,
                  eps, delta, len(counts))


def law_key_rows(plan, patterns: np.ndarray) -> np.ndarray:
    """(C, d) integer rows: a dataset's output law depends on it only through counts @ rows.

    Identification scores v_i = N_i - max(0, θ_n·n - e_i) enter every selector only through their
    differences (argmax, softmax and the runner-up gap are shift-invariant), so the key is N_i - N_1 and
    the counts |S ∩ (L_i \\ L_j)| behind the excesses. Generation scores -max{N_i : G ⊄ L_i} are 0 for an
    item inside every language, so the key is the language counts themselves.
    """
    member = patterns.astype(np.int64)
    if isinstance(plan, GenerationPlan):
        return member
    if not isinstance(plan, IdentificationPlan):
        raise ProceedingsError(f"no law key for plan {type(plan).__name__}")
    excess_parts = [(patterns[:, i] & ~patterns[:, j]).astype(np.int64) for j, i in zip(*np.nonzero(plan.below))]
    return np.column_stack([member[:, 1:] - member[:, :1], *excess_parts]).reshape(len(patterns), -1)


def dataset_classes(rows: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(representative counts (P, C), keys (P, d)): one dataset of `size` elements per distinct key.

    Cells with equal key rows are interchangeable, so representatives use the first cell of each distinct
    row; a zero row (a cell that moves no statistic) takes what the others leave.
    """
    distinct, first_cell = np.unique(rows, axis=0, return_index=True)
    zero = np.flatnonzero(~distinct.any(axis=1))
    moving = np.flatnonzero(distinct.any(axis=1))
    if len(zero):
        tops = [compositions(total, len(moving)) for total in range(size + 1)] if len(moving) else [np.zeros((1, 0))]
        parts = np.concatenate(tops).astype(np.int64)
        filler = size - parts.sum(axis=1)
    else:
        parts, filler = compositions(size, len(moving)), None
    keys = parts @ distinct[moving]
    keys, keep = np.unique(keys, axis=0, return_index=True)
    counts = np.zeros((len(keep), rows.shape[0]), dtype=np.int64)
    counts[:, first_cell[moving]] = parts[keep]
    if filler is not None:
        counts[:, first_cell[zero[0]]] = filler[keep]
    return counts, keys


def class_count(instance: Instance, learner: Learner, n: int) -> int:
    """How many representatives (classes of size-(n-1) datasets × distinct key rows) a class audit scores."""
    rows = law_key_rows(learner.plan(instance.collection, n), universe_cells(instance, learner, n))
    distinct = np.unique(rows, axis=0)
    moving = int(distinct.any(axis=1).sum())
    return math.comb(n - 1 + moving, moving) * len(distinct)  # before deduplicating keys: the enumeration's cost


def class_audit(instance: Instance, learner: Learner, n: int, eps: float, delta: float = 0.0) -> AuditResult:
    """`audit`, exhaustive over the classes of datasets with equal law keys: every neighbouring pair of size n
    is (R + e_s, R + e_t) with R of size n - 1, and its laws are those of R's class representative."""
    plan = learner.plan(instance.collection, n)
    patterns = universe_cells(instance, learner, n)
    if (cost := class_count(instance, learner, n)) > CLASS_LIMIT:
        raise ProceedingsError(f"a class audit at n={n} would score {cost:,} representatives (limit {CLASS_LIMIT:,})")
    rows = law_key_rows(plan, patterns)
    cells = np.unique(rows, axis=0, return_index=True)[1]  # one cell per distinct key row
    base, _ = dataset_classes(rows, n - 1)
    grown = (base[:, None, :] + np.eye(len(patterns), dtype=np.int64)[cells][None]).reshape(-1, len(patterns))
    index = np.arange(len(grown)).reshape(len(base), len(cells))
    s, t = np.nonzero(~np.eye(len(cells), dtype=bool))
    first, second = index[:, s].reshape(-1), index[:, t].reshape(-1)
    return _judge(learner, plan, CellCounts(patterns, grown, n), first, second, eps, delta, len(base))


def _judge(learner: Learner, plan, cells: CellCounts, first: np.ndarray, second: np.ndarray, eps: float,
           delta: float, datasets: int) -> AuditResult:
    """Privacy loss and hockey-stick divergence of every pair (first[k], second[k]) of `cells`."""
    log_probs = learner.log_output_probs(plan, cells)
    loss, hockey = privacy_losses(log_probs[first], log_probs[second], eps)
    scores = np.asarray(plan.scores(cells), dtype=float)
    change = scores[second] - scores[first]
    score_range = float((change.max(axis=-1) - change.min(axis=-1)).max())
    selector = learner.selector
    range_loss = selector.scale(plan.sensitivity) * score_range if isinstance(selector, ExponentialMechanism) else 0.0
    violation = hockey if delta > 0 else loss
    worst = int(np.argmax(violation))
    passed = (bool(hockey.max() <= delta * (1 + TOLERANCE) + 1e-15) if delta > 0
              else bool(max(loss.max(), range_loss) <= eps * (1 + TOLERANCE) + 1e-12))
    return AuditResult(learner.selector.name + "-" + learner.task[:3], cells.n, eps, delta, datasets, len(first),
                       float(loss.max()), float(hockey.max()),
                       (cells.counts[first[worst]].tolist(), cells.counts[second[worst]].tolist()), score_range,
                       range_loss, passed, 1.0 - float(np.exp(log_probs[:, -1]).min()))


def stability_level_audit(selector: ProposeTestRelease, eps: float, delta: float) -> dict:
    """The (ε, δ) bound checked exactly on the test's law at every stability level q = 0..⌈2A⌉+2.

    Neighbouring datasets have stabilities q, q' with |q - q'| <= 1 and the same argmax, or both
    q = q' = 0 (propose-test-release's structure; the dataset audits check it). A dataset reaches
    q only at n >= 2Δ(q + 1), beyond exhaustive enumeration for q > A when A ~ ln(1/δ)/ε is large,
    so the release branch (released with probability >= 1/2 once q >= A) is audited here on the
    selector's own closed-form law, for the A of the (ε, δ) being audited.
    """
    bound = TruncatedLaplace(eps, delta).bound
    levels = np.arange(0, math.ceil(2 * bound) + 3)
    scores = np.stack([2.0 * (levels + 1), np.zeros(len(levels))], axis=-1)  # gap 2(q+1), sensitivity 1
    log_p = selector.log_probs(scores, 1.0)  # (levels, 3): the winner, the other, ⊥
    flipped = selector.log_probs(np.array([[0.0, 2.0]]), 1.0)  # the winner changes only where q = 0
    first = np.concatenate([log_p[:-1], log_p[1:], log_p[:1]])
    second = np.concatenate([log_p[1:], log_p[:-1], flipped])
    loss, hockey = privacy_losses(first, second, eps)
    worst = float(hockey.max())
    return {"mechanism": selector.name, "eps": eps, "delta": delta, "levels": len(levels), "bound_A": bound,
            "max_release_probability": float(np.exp(log_p[:, 0]).max()), "max_hockey_stick": worst,
            "passed": bool(worst <= delta * (1 + TOLERANCE) + 1e-15)}
