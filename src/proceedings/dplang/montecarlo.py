"""Monte Carlo error estimates with exact (Clopper-Pearson) confidence intervals (spec §2.5).

Runs the real algorithm end to end: draws samples from D, scores them, samples the mechanism's
noise, produces the answer (an index, or for generation an actual far element), and checks it
against the agnostic objective (for generation: really unseen, really in every target language).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import beta

from proceedings.dplang.families import Instance
from proceedings.dplang.learner import Learner
from proceedings.dplang.objectives import generation_correct, identification_correct

ELEMENTS_PER_BATCH = 2_000_000


def clopper_pearson(failures: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Exact binomial confidence interval for the failure probability."""
    alpha = 1.0 - confidence
    low = 0.0 if failures == 0 else float(beta.ppf(alpha / 2, failures, trials - failures + 1))
    high = 1.0 if failures == trials else float(beta.ppf(1 - alpha / 2, failures + 1, trials - failures))
    return low, high


def count_failures(instance: Instance, learner: Learner, n: int, trials: int, rng: np.random.Generator) -> int:
    """Number of trials (independent samples of size n) on which the algorithm's answer is wrong."""
    plan = learner.plan(instance.collection, n)
    target, target_languages = instance.target, instance.target_languages
    batch = max(1, ELEMENTS_PER_BATCH // n)
    failures = 0
    for start in range(0, trials, batch):
        samples = instance.distribution.sample((min(batch, trials - start), n), rng)
        choices = learner.choose_many(samples, plan, rng)
        for sample, choice in zip(samples, choices):
            answer = plan.output(int(choice), rng)
            if learner.task == "identification":
                failures += not identification_correct(answer, target)
            else:
                failures += not generation_correct(answer, sample, target_languages)
    return failures


def mc_log_error(instance: Instance, learner: Learner, n: int, trials: int,
                 rng: np.random.Generator) -> tuple[float, float, float]:
    """(log of the failure frequency, log CI low, log CI high); log 0 = -inf."""
    failures = count_failures(instance, learner, n, trials, rng)
    low, high = clopper_pearson(failures, trials)
    return _log(failures / trials), _log(low), _log(high)


def _log(p: float) -> float:
    return math.log(p) if p > 0 else -math.inf
