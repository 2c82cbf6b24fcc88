"""What NIV is compared against (spec §5): B0 identity and B1 the classical algorithmic variations.

B1 moves points along one fixed "unit" displacement per axis, scaled by a strength per axis and sign:
- wght: outward-normal offset ("fake bold"). For clockwise TrueType outer contours the outward normal
  at a point is (−t_y, t_x)/|t| with t = next − prev; counters run the other way, so their normals
  point into the counter, away from the ink. The outline shifts right by the offset and the advance
  grows by twice it, so side bearings stay.
- wdth: x-scale about the origin, advance included ("fake condense").
- slnt: shear x += k·y ("fake slant"); advance unchanged.
- opsz: nothing.
A two-axis corner is the sum of its one-axis displacements. Each strength is the least-squares fit
s = Σ⟨u, d⟩ / Σ⟨u, u⟩ over the training fonts' one-axis corners of that axis and sign.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from proceedings.core.runtime import atomic_write_text

from proceedings.niv.variations import AXES

ADVANCE = -3  # index of the advance phantom point (left, advance, top, bottom)


def unit_displacement(points: np.ndarray, contour: np.ndarray, axis: str) -> np.ndarray:
    """(P, 2) displacement of strength 1 along one axis; points in em-normalised units, phantoms last."""
    u = np.zeros_like(points, dtype=np.float64)
    outline = contour >= 0
    if axis == "wght":
        for c in np.unique(contour[outline]):
            idx = np.flatnonzero(contour == c)
            pts = points[idx].astype(np.float64)
            tangent = np.roll(pts, -1, axis=0) - np.roll(pts, 1, axis=0)
            length = np.maximum(np.linalg.norm(tangent, axis=1, keepdims=True), 1e-9)
            normal = np.column_stack([-tangent[:, 1], tangent[:, 0]]) / length
            u[idx] = normal + np.array([1.0, 0.0])
        u[ADVANCE] = (2.0, 0.0)
    elif axis == "wdth":
        u[:, 0] = points[:, 0]
        u[~outline] = 0.0
        u[ADVANCE, 0] = points[ADVANCE, 0]
    elif axis == "slnt":
        u[outline, 0] = points[outline, 1]
    return u


@dataclass
class AlgorithmicBaseline:
    """B1: one fitted strength per (axis, sign)."""
    strength: dict[str, float] = field(default_factory=dict)  # "wght+1" -> s

    def predict(self, points: np.ndarray, contour: np.ndarray, location: np.ndarray) -> np.ndarray:
        """(P, 2) displacement at a normalised location vector over AXES."""
        total = np.zeros_like(points, dtype=np.float64)
        for axis, value in zip(AXES, location):
            if value:
                key = f"{axis}{'+' if value > 0 else '-'}1"
                total += abs(value) * self.strength.get(key, 0.0) * unit_displacement(points, contour, axis)
        return total

    @classmethod
    def fit(cls, glyphs) -> "AlgorithmicBaseline":
        """Least squares per (axis, sign) on the one-axis corners of the given glyphs."""
        num: dict[str, float] = {}
        den: dict[str, float] = {}
        for g in glyphs:
            for corner, target in zip(g.corners, g.displacement):
                active = np.flatnonzero(corner)
                if len(active) != 1:
                    continue
                axis = AXES[active[0]]
                key = f"{axis}{'+' if corner[active[0]] > 0 else '-'}1"
                u = unit_displacement(g.points, g.contour, axis)
                num[key] = num.get(key, 0.0) + float((u * target).sum())
                den[key] = den.get(key, 0.0) + float((u * u).sum())
        return cls({k: num[k] / den[k] for k in num if den[k] > 0})

    def save(self, path: Path | str) -> Path:
        return atomic_write_text(path, json.dumps({"strength": self.strength}, indent=1))

    @classmethod
    def load(cls, path: Path | str) -> "AlgorithmicBaseline":
        return cls(json.loads(Path(path).read_text())["strength"])


def fitted_baseline(split_name: str = "tiny") -> AlgorithmicBaseline:
    """B1 fitted on a split's training families (ASCII glyphs), cached under $PROCEEDINGS_CACHE."""
    from proceedings.niv.data import build_dataset, cache_root, split

    path = cache_root() / f"algorithmic-{split_name}.json"
    if path.exists():
        return AlgorithmicBaseline.load(path)
    baseline = AlgorithmicBaseline.fit(build_dataset(split(split_name)["train"], charset="ascii").glyphs)
    baseline.save(path)
    return baseline


def identity(points: np.ndarray, location: np.ndarray) -> np.ndarray:
    """B0: no variation at all."""
    return np.zeros_like(points, dtype=np.float64)
