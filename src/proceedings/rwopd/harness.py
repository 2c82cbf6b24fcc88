"""Scoring model outputs with the PEC: rewards, unbiased pass@k, per-category tables, bootstrap CIs.

pass@k is the unbiased estimator of Chen et al. (2021): 1 - C(n-c, k) / C(n, k) for n samples of
which c pass. Only a proved EQUIVALENT passes (issue 15); EQUIVALENT_BOUNDED is reported beside it
as `bounded@1` (no separating lasso up to the stated depth, no proof), and `relaxed` counts one-way
implication too.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.rwopd.pec import PECResult, Verdict, check_equivalence, reward
from proceedings.rwopd.prompting import extract_sva


def pass_at_k(n: int, c: int, k: int) -> float:
    if not 1 <= k <= n:  # the estimator is undefined with fewer than k samples (it would say 1.0)
        raise ProceedingsError(f"pass@{k} needs at least {k} samples per task, got {n}; lower k or sample more")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


class VerdictCache:
    """Memoised PEC results keyed by (candidate, reference, testbench): rollouts repeat a lot.

    Both sides are elaborated against the task's full signal list: its testbench when it has one
    (FVEval ships it), else `signals` (the grammar's sig_A..sig_J), never only the reference's names,
    so a well-formed candidate naming another signal of the task is judged, not a SYNTAX_ERROR.
    """

    def __init__(self, timeout_s: float = 5.0, signals: dict[str, int] | None = None) -> None:
        from proceedings.rwopd.grammar import SIGNALS

        self.timeout_s, self.table = timeout_s, {}
        self.signals = signals if signals is not None else dict.fromkeys(SIGNALS, 1)

    def result(self, candidate: str | None, reference: str, testbench: str | None = None) -> PECResult:
        if not candidate:
            return PECResult(Verdict.SYNTAX_ERROR, message="no assertion in the completion")
        key = (candidate, reference, testbench)
        if key not in self.table:
            signals = None if testbench is not None else self.signals
            self.table[key] = check_equivalence(candidate, reference, signals=signals, testbench=testbench,
                                                timeout_s=self.timeout_s)
        return self.table[key]

    def reward(self, completion: str, reference: str, rho: float, testbench: str | None = None) -> float:
        return reward(self.result(extract_sva(completion), reference, testbench), rho)


@dataclass
class Evaluation:
    """Per-task lists of PEC results, one per sample; summaries computed from their verdicts."""

    tasks: list  # objects with .id, .category
    results: list[list[PECResult]]

    @property
    def verdicts(self) -> list[list[Verdict]]:
        return [[r.verdict for r in rs] for rs in self.results]

    def pass_at(self, k: int, category: str | None = None, relaxed: bool = False) -> float:
        scores = self.per_task(k, relaxed, category)
        return float(np.mean(scores)) if scores else float("nan")

    def per_task(self, k: int, relaxed: bool = False, category: str | None = None) -> list[float]:
        good = {Verdict.EQUIVALENT} | ({Verdict.A_IMPLIES_B, Verdict.B_IMPLIES_A} if relaxed else set())
        return [pass_at_k(len(v), sum(x in good for x in v), k) for t, v in zip(self.tasks, self.verdicts)
                if category is None or t.category == category]

    def bounded_rate(self) -> float:
        """Share of samples that are only EQUIVALENT_BOUNDED (not counted in pass@k)."""
        flat = [v for vs in self.verdicts for v in vs]
        return float(np.mean([v == Verdict.EQUIVALENT_BOUNDED for v in flat])) if flat else float("nan")

    def syntax_rate(self) -> float:
        flat = [v for vs in self.verdicts for v in vs]
        return float(np.mean([v != Verdict.SYNTAX_ERROR for v in flat])) if flat else float("nan")

    def bootstrap(self, k: int = 1, rounds: int = 1000, seed: int = 0) -> tuple[float, float]:
        """95% percentile interval of pass@k over tasks resampled with replacement."""
        scores = np.array(self.per_task(k))
        if not len(scores):
            return float("nan"), float("nan")
        rng = np.random.default_rng(seed)
        means = scores[rng.integers(0, len(scores), (rounds, len(scores)))].mean(axis=1)
        return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))

    def summary(self, categories: tuple[str, ...]) -> dict:
        low, high = self.bootstrap()
        out = {"pass@1": self.pass_at(1), "pass@1_ci": [low, high], "relaxed_pass@1": self.pass_at(1, relaxed=True),
               "bounded@1": self.bounded_rate(), "syntax@1": self.syntax_rate()}
        for category in categories:
            out[f"pass@1_{category}"] = self.pass_at(1, category)
        return out


def reference_of(task) -> str:
    """The SVA a task's samples are checked against (grammar pairs carry `.sva`, NL2SVA tasks `.reference`)."""
    return getattr(task, "sva", None) or task.reference


def evaluate_samples(tasks, samples: list[list[str]], cache: VerdictCache, testbench_of=None) -> Evaluation:
    """Check every sample of every task against the task's reference."""
    results = []
    for task, outs in zip(tasks, samples):
        bench = testbench_of(task) if testbench_of else None
        results.append([cache.result(extract_sva(o), reference_of(task), bench) for o in outs])
    return Evaluation(list(tasks), results)


def category_counts(tasks) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for task in tasks:
        counts[task.category] += 1
    return dict(counts)
