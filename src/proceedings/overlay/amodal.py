"""Amodal completion by shape templates (spec §2.2 step 4, a stand-in for pix2gestalt).

The entity's label names its shape. Its template (centre, radius, rotation) starts where the
detected box puts it (rotation searched coarse to fine over the shape's symmetry period) and is then
refined by coordinate descent on

    cost = |visible \\ T| + |T ∩ background| + BOX_WEIGHT * sum_edges |edge(T) - edge(box)|

so the template covers the visible mask, never spills onto visible background, and where other
objects hide the outline it stays with the detected box. The amodal estimate is the visible mask
plus the template's part hidden under other objects.
"""

from __future__ import annotations

import numpy as np

from proceedings.overlay.sprites import SHAPES, SYMMETRY_DEGREES, Sprite, amodal_mask, extents

COARSE_DEGREES, FINE_DEGREES = 10, 2
BOX_WEIGHT = 1.5  # pixels of misfit one pixel of box disagreement costs (the box prior on hidden sides)
STEPS = ((1.0, 0.04, 4.0), (0.5, 0.02, 2.0), (0.25, 0.01, 1.0))  # (px, relative radius, degrees) per round


def placed(shape: str, box, degrees: float, size: int) -> Sprite:
    """The shape at one rotation, placed so its extent fills the xyxy pixel box."""
    x_lo, x_hi, y_lo, y_hi = extents(shape, int(round(degrees)) % 360)
    w, h = (box[2] - box[0]) / size, (box[3] - box[1]) / size
    radius = max(0.5 * (w / (x_hi - x_lo) + h / (y_hi - y_lo)), 1e-3)
    cx = (box[0] + box[2]) / 2 / size - radius * (x_lo + x_hi) / 2
    cy = (box[1] + box[3]) / 2 / size - radius * (y_lo + y_hi) / 2
    return Sprite(shape, "red", "solid", "medium", cx, cy, radius, np.radians(degrees), 0)


def _box_of(sprite: Sprite, size: int) -> np.ndarray:
    """The sprite's extent in pixels (x1, y1, x2, y2)."""
    x_lo, x_hi, y_lo, y_hi = extents(sprite.shape, int(round(np.degrees(sprite.rotation))) % 360)
    r = sprite.radius * size
    cx, cy = sprite.cx * size, sprite.cy * size
    return np.array([cx + r * x_lo, cy + r * y_lo, cx + r * x_hi, cy + r * y_hi])


def _cost(sprite: Sprite, box, visible: np.ndarray, background: np.ndarray) -> float:
    size = visible.shape[0]
    t = amodal_mask(sprite, size)
    misfit = int((visible & ~t).sum() + (t & background).sum())
    return misfit + BOX_WEIGHT * float(np.abs(_box_of(sprite, size) - np.asarray(box)).sum())


def best_rotation(shape: str, box, visible: np.ndarray, background: np.ndarray) -> int:
    """Degrees, searched every COARSE_DEGREES over the symmetry period, then every FINE_DEGREES nearby."""
    size = visible.shape[0]
    score = lambda d: _cost(placed(shape, box, d, size), box, visible, background)  # noqa: E731
    if shape in ("circle", "ring"):
        return 0
    coarse = min(range(0, SYMMETRY_DEGREES[shape], COARSE_DEGREES), key=score)
    return min(range(coarse - COARSE_DEGREES + FINE_DEGREES, coarse + COARSE_DEGREES, FINE_DEGREES), key=score)


def fit(shape: str, box, visible: np.ndarray, background: np.ndarray) -> Sprite:
    """The template's pose by coordinate descent on the cost above, from the box-filling placement."""
    size = visible.shape[0]
    best = placed(shape, box, best_rotation(shape, box, visible, background), size)
    cost = _cost(best, box, visible, background)
    for px, rel, deg in STEPS:
        improved = True
        while improved:
            improved = False
            for field, step in (("cx", px / size), ("cy", px / size), ("radius", rel * best.radius),
                                ("rotation", np.radians(deg) if shape not in ("circle", "ring") else 0.0)):
                for sign in (-1, 1):
                    if not step:
                        continue
                    trial = Sprite(**{**best.to_dict(), field: getattr(best, field) + sign * step})
                    c = _cost(trial, box, visible, background)
                    if c < cost:
                        best, cost, improved = trial, c, True
    return best


def complete(shape: str, box, visible: np.ndarray, background: np.ndarray) -> np.ndarray:
    """The amodal mask estimate of one object (h, w) bool."""
    if shape not in SHAPES:
        return visible.copy()
    fitted = amodal_mask(fit(shape, box, visible, background), visible.shape[0])
    return visible | (fitted & ~background)
