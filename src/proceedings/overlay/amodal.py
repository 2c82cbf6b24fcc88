"""Amodal completion by shape templates (spec §2.2 step 4, a stand-in for pix2gestalt).

The entity's label names its shape; the template of that shape is fitted inside the detected box
(rotation coarse to fine over the shape's symmetry period, then a 1-px shift and +-5 % scale) so that
it contains the visible mask and spills only onto pixels other objects cover, never onto visible
background. The amodal estimate is the visible mask plus the template's part hidden under other objects.
"""

from __future__ import annotations

import itertools

import numpy as np

from proceedings.overlay.sprites import SHAPES, SYMMETRY_DEGREES, Sprite, amodal_mask, extents

COARSE_DEGREES, FINE_DEGREES = 10, 2


def template(shape: str, box, degrees: int, size: int, scale: float = 1.0, shift=(0.0, 0.0)) -> np.ndarray:
    """The shape at one rotation, placed so its extent fills the xyxy pixel box."""
    x_lo, x_hi, y_lo, y_hi = extents(shape, degrees)
    w, h = (box[2] - box[0]) / size, (box[3] - box[1]) / size
    radius = scale * 0.5 * (w / (x_hi - x_lo) + h / (y_hi - y_lo))
    cx = (box[0] + box[2]) / 2 / size - radius * (x_lo + x_hi) / 2 + shift[0] / size
    cy = (box[1] + box[3]) / 2 / size - radius * (y_lo + y_hi) / 2 + shift[1] / size
    return amodal_mask(Sprite(shape, "red", "solid", "medium", cx, cy, max(radius, 1e-3), np.radians(degrees), 0), size)


def _misfit(candidate: np.ndarray, visible: np.ndarray, background: np.ndarray) -> int:
    """Visible pixels the template misses plus template pixels on visible background."""
    return int((visible & ~candidate).sum() + (candidate & background).sum())


def best_rotation(shape: str, box, visible: np.ndarray, background: np.ndarray) -> int:
    """Degrees, searched every COARSE_DEGREES over the symmetry period, then every FINE_DEGREES nearby."""
    size = visible.shape[0]
    score = lambda d: _misfit(template(shape, box, d, size), visible, background)  # noqa: E731
    if shape in ("circle", "ring"):
        return 0
    coarse = min(range(0, SYMMETRY_DEGREES[shape], COARSE_DEGREES), key=score)
    return min(range(coarse - COARSE_DEGREES + FINE_DEGREES, coarse + COARSE_DEGREES, FINE_DEGREES), key=score)


def complete(shape: str, box, visible: np.ndarray, background: np.ndarray) -> np.ndarray:
    """The amodal mask estimate of one object (h, w) bool."""
    size = visible.shape[0]
    if shape not in SHAPES:
        return visible.copy()
    degrees = best_rotation(shape, box, visible, background)
    moves = itertools.product((0.95, 1.0, 1.05), itertools.product((-1.0, 0.0, 1.0), repeat=2))
    fitted = min((_misfit(t := template(shape, box, degrees, size, s, d), visible, background), k, t)
                 for k, (s, d) in enumerate(moves))[2]
    return visible | (fitted & ~background)
