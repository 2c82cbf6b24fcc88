"""Masked Point Recovery (spec §2.3): mask point anchors at random in training, keep the loss on the full
depth video, so the model must infer masked, hidden and future motion from what it was given.

Per clip: each agent is dropped with p = 0.2; with p = 0.3 one agent loses a contiguous span of
25-75 % of the frames; with p = 0.3 every point after a cut frame in [T/4, 3T/4] is zeroed (the
causal mode). The ego warp is never masked. The same (seed, step) gives the same clips and masks, so
every arm trained with MPR sees the same batches in the same order.
"""

from __future__ import annotations

import numpy as np

from proceedings.motionforcing.conditions import random_span
from proceedings.motionforcing.dataset import Batch, ClipSet, batch


def mpr_mask(agents: int, frames: int, rng: np.random.Generator, drop_p: float = 0.2, span_p: float = 0.3,
             future_p: float = 0.3) -> np.ndarray:
    """The Masked Point Recovery schedule (spec §2.3): per-agent dropout, one span, one future cut."""
    given = np.ones((agents, frames), bool)
    given[rng.random(agents) < drop_p] = False
    if agents and rng.random() < span_p:
        start, stop = random_span(frames, rng)
        given[rng.integers(agents), start:stop] = False
    if rng.random() < future_p:
        given[:, rng.integers(frames // 4, 3 * frames // 4 + 1):] = False
    return given


def batch_sampler(data: ClipSet, batch_size: int, seed: int, masked: bool):
    """step -> Batch: clips drawn by (seed, step); MPR masks when `masked`, else every point given."""
    def sample(step: int) -> Batch:
        rng = np.random.default_rng([seed, step])
        index = rng.choice(len(data), batch_size, replace=False)
        given = data.given_all()[index]  # present agents fill the first slots
        for row, i in zip(given, index):  # drawn in both modes, so both see the same RNG stream
            agents = int(data.present[i].sum())
            recovery = mpr_mask(agents, data.frames, rng)
            if masked:
                row[:agents] &= recovery
        return batch(data, index, given)

    return sample
