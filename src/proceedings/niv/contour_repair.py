"""Contour repair: a refused prediction smoothed along its contours before the algorithmic fallback (round 13).

The paper's line-preservation idea (spec §2.2: moved points of a straight run should stay on a line) in its
simplest, neighbour-consistency form. NIV's refused glyphs are almost all new self-intersections across thin
strokes, caused by point-to-point noise rather than overshoot (README, "Why glyphs fall back"); averaging each
point's displacement with its two contour neighbours, d <- 1/2 d + 1/4 (d_prev + d_next), removes that noise
while leaving any displacement that varies slowly along the outline (a translation, a scale) unchanged. Phantom
points (advance, side bearings) are never smoothed. Convert repairs each corner on its own (round 14): a corner
that passes every check is kept as predicted, a refused one gets the fewest passes, up to a preset's number, after
which it passes; only a glyph with a corner that no level repairs falls back to B1. (Round 13 smoothed all corners
by one common level; smoothing also breaks sound corners of serifed glyphs, so that level often exceeded the cap.)
"""

from __future__ import annotations

import numpy as np


def contour_neighbours(contour: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(previous, next) point index of every point along its closed contour; a phantom point is its own
    neighbour, so smoothing leaves it as it is."""
    prev_index = np.arange(len(contour))
    next_index = np.arange(len(contour))
    for c in np.unique(contour[contour >= 0]):
        idx = np.flatnonzero(contour == c)
        prev_index[idx], next_index[idx] = np.roll(idx, 1), np.roll(idx, -1)
    return prev_index, next_index


def smooth_along_contours(displacement: np.ndarray, contour: np.ndarray, passes: int) -> np.ndarray:
    """`passes` rounds of d <- 1/2 d + 1/4 (d_prev + d_next) over the point axis of a (..., P, 2) array."""
    prev_index, next_index = contour_neighbours(contour)
    d = displacement
    for _ in range(passes):
        d = 0.5 * d + 0.25 * (d[..., prev_index, :] + d[..., next_index, :])
    return d


def repair(default: np.ndarray, displacement: np.ndarray, on_curve: np.ndarray, contour: np.ndarray,
           max_passes: int) -> tuple[np.ndarray, int] | None:
    """(the (C, P, 2) corner displacements, each sound corner as given and each refused one smoothed by its own
    fewest passes <= max_passes that make it pass every check; the most passes any corner took), or None when
    some corner has no such level."""
    from proceedings.niv.outline_check import defects

    repaired, most = [], 0
    for d in displacement:
        passes = 0
        while defects(default, default + d, on_curve, contour):
            passes += 1
            if passes > max_passes:
                return None
            d = smooth_along_contours(d, contour, 1)
        repaired.append(d)
        most = max(most, passes)
    return np.stack(repaired), most
