"""Subsample-and-aggregate: a second (ε, δ)-DP mechanism (spec §2.3 APPROX-GEN; Nissim,
Raskhodnikova and Smith 2007).

Split the sample into m disjoint chunks, run the non-private rule on each, and release the answer
with the most votes by propose-test-release on the vote counts. Replacing one sample changes one
chunk's vote, so each vote count moves by at most 1 (sensitivity 1) and the release is (ε, δ)-DP
whatever the chunk rule does. With m = 8⌈A⌉ chunks (A ≈ ln(1/δ)/ε, the test's threshold), the
cheapest failure takes the noise near -A (a constant probability) and V >= m/2 - 1 - 2A ≈ m/4 wrong
chunks, each of probability exp(-I·n/m): the exponent tends to 1/4 of the non-private I·n for
every ε — a constant factor, not min{1, ε}.

The exact error sums over the number V of wrong chunk votes, V ~ Binomial(m, e_c) with e_c the
chunk rule's exact error; it needs an instance with two candidate answers (F1, G1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln, logsumexp

from proceedings.core.errors import ProceedingsError
from proceedings.dplang.exact import reduced_log_error
from proceedings.dplang.families import Instance
from proceedings.dplang.learner import Learner
from proceedings.dplang.mechanisms import ProposeTestRelease, TruncatedLaplace


def chunk_count(eps: float, delta: float) -> int:
    """m = 8⌈A⌉: votes a wrong answer must win stay a constant fraction of m for every ε."""
    return 8 * math.ceil(TruncatedLaplace(eps, delta).bound)


@dataclass(frozen=True)
class SubsampleAggregate:
    """Chunks of the sample -> the non-private `chunk_rule` on each -> propose-test-release on votes."""

    chunk_rule: Learner
    eps: float
    delta: float

    @property
    def chunks(self) -> int:
        return chunk_count(self.eps, self.delta)

    def choose_many(self, samples: np.ndarray, collection, rng: np.random.Generator) -> np.ndarray:
        """Candidate released on each of a batch of samples (T, n) (index M = ⊥), candidates being the
        chunk rule's plan at the chunk size."""
        trials, n = samples.shape
        size = n // self.chunks
        if size < 1:
            raise ProceedingsError(f"subsample-and-aggregate needs n >= {self.chunks} (m chunks), got {n}")
        chunks = samples[:, :size * self.chunks].reshape(trials * self.chunks, size)  # disjoint chunks
        plan = self.chunk_rule.plan(collection, size)
        votes = self.chunk_rule.choose_many(chunks, plan, rng).reshape(trials, self.chunks)
        candidates = len(plan.languages) if self.chunk_rule.task == "identification" else len(plan.menu)
        counts = np.stack([(votes == c).sum(axis=1) for c in range(candidates)], axis=-1).astype(float)
        return ProposeTestRelease(self.eps, self.delta).sample(counts, 1.0, rng)

    def run(self, sample, collection, rng: np.random.Generator):
        """The released answer on one sample: the chunk rule's answer for the winning candidate, or ⊥."""
        sample = np.asarray(sample)
        choice = int(self.choose_many(sample[None, :], collection, rng)[0])
        plan = self.chunk_rule.plan(collection, len(sample) // self.chunks)
        return plan.output(choice, rng)

    def log_error(self, instance: Instance, n: int) -> float:
        """Exact log P(wrong or ⊥) on a two-answer instance whose chunk rule has an exact reduction."""
        m, size = self.chunks, n // self.chunks
        if size < 1:
            raise ProceedingsError(f"subsample-and-aggregate needs n >= {m} (m chunks), got {n}")
        log_chunk_error = reduced_log_error(instance, self.chunk_rule, size)[0]
        wrong = np.arange(m + 1)
        log_pmf = (gammaln(m + 1) - gammaln(wrong + 1) - gammaln(m - wrong + 1) + wrong * log_chunk_error
                   + (m - wrong) * math.log(-math.expm1(log_chunk_error)))
        votes = np.stack([m - wrong, wrong], axis=-1).astype(float)  # (right, wrong); ties go to the right one
        log_out = ProposeTestRelease(self.eps, self.delta).log_probs(votes, 1.0)  # (m + 1, 3): right, wrong, ⊥
        return float(logsumexp(log_pmf + logsumexp(log_out[:, 1:], axis=-1)))
