"""Point error of predicted displacements (spec §5 metrics).

Error of one (glyph, corner) = mean over the glyph's outline points of the L2 distance between
predicted and true displacement, in units per 1000 UPM (displacements are stored · 2/UPM, so × 500).
Phantom points are reported separately as the advance-width error. Groups: all corners, one-axis
corners per axis, two-axis corners.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from proceedings.niv.data import Glyph
from proceedings.niv.variations import AXES

PER_1000_UPM = 500.0
ADVANCE = -3


@dataclass
class CornerErrors:
    """One row per (glyph, corner)."""
    point: np.ndarray  # mean L2 outline-point error per 1000 UPM
    advance: np.ndarray  # |advance error| per 1000 UPM
    active: np.ndarray  # (rows, A) the corner's location
    glyph: np.ndarray  # index of the glyph, for bootstrapping over glyphs

    def select(self, group: str) -> np.ndarray:
        """Row mask: 'all', 'two_axis', or an axis tag (its one-axis corners)."""
        n_active = (self.active != 0).sum(1)
        if group == "all":
            return np.ones(len(self.point), bool)
        if group == "two_axis":
            return n_active == 2
        return (n_active == 1) & (self.active[:, AXES.index(group)] != 0)

    def summary(self) -> dict[str, float]:
        out = {"error": float(self.point.mean()), "advance_error": float(self.advance.mean())}
        for group in ("two_axis", *AXES):
            rows = self.select(group)
            if rows.any():
                out[f"error_{group}"] = float(self.point[rows].mean())
        return out


def corner_errors(glyphs: list[Glyph], predictions: list[np.ndarray]) -> CornerErrors:
    point, advance, active, owner = [], [], [], []
    for index, (g, pred) in enumerate(zip(glyphs, predictions)):
        diff = pred - g.displacement  # (C, P, 2)
        outline = g.contour >= 0
        point.append(np.linalg.norm(diff[:, outline], axis=-1).mean(axis=1) * PER_1000_UPM)
        advance.append(np.abs(diff[:, ADVANCE, 0] - diff[:, ADVANCE - 1, 0]) * PER_1000_UPM)
        active.append(g.corners)
        owner.append(np.full(len(g.corners), index))
    return CornerErrors(np.concatenate(point), np.concatenate(advance), np.concatenate(active),
                        np.concatenate(owner))


def bootstrap_difference(a: CornerErrors, b: CornerErrors, group: str, samples: int = 1000, seed: int = 0
                         ) -> tuple[float, float]:
    """95 % bootstrap interval over glyphs of mean(a) − mean(b) on a group of corners (same rows)."""
    rows = a.select(group)
    diff_by_glyph: dict[int, list[float]] = {}
    for g, d in zip(a.glyph[rows], a.point[rows] - b.point[rows]):
        diff_by_glyph.setdefault(int(g), []).append(float(d))
    per_glyph = np.array([np.mean(v) for v in diff_by_glyph.values()])
    if len(per_glyph) == 0:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    means = per_glyph[rng.integers(0, len(per_glyph), (samples, len(per_glyph)))].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))
