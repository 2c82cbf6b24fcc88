"""Degenerate deformations (spec §7): contour-direction flips and new self-intersections.

A predicted outline is refused at a corner when a contour's signed area changes sign (the contour
turned inside out or collapsed) or when skia-pathops' `simplify` splits the glyph into a different
number of contours than it does for the default outline (a contour crossed itself or another).
The algorithmic fallback is itself checked: a corner where it fails too is shrunk towards the default
outline until it passes, so no converted glyph is degenerate.
"""

from __future__ import annotations

import numpy as np


def signed_areas(points: np.ndarray, contour: np.ndarray) -> np.ndarray:
    """Shoelace area of each contour's polygon of on- and off-curve points."""
    areas = []
    for c in range(int(contour.max()) + 1):
        pts = points[contour == c]
        x, y = pts[:, 0], pts[:, 1]
        areas.append(0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y)))
    return np.array(areas)


def simplified_contours(points: np.ndarray, on_curve: np.ndarray, contour: np.ndarray) -> int:
    """How many contours skia-pathops' union of the TrueType outline has."""
    import pathops
    from fontTools.pens.pointPen import PointToSegmentPen

    path = pathops.Path()
    pen = PointToSegmentPen(path.getPen())
    for c in range(int(contour.max()) + 1):
        idx = np.flatnonzero(contour == c)
        pen.beginPath()
        for k, i in enumerate(idx):
            prev_on = on_curve[idx[k - 1]] == 1
            kind = ("line" if prev_on else "qcurve") if on_curve[i] == 1 else None
            pen.addPoint((float(points[i, 0]), float(points[i, 1])), segmentType=kind)
        pen.endPath()
    try:
        return len(list(pathops.simplify(path, clockwise=False).contours))
    except pathops.PathOpsError:
        return -1


FLIPPED, COLLAPSED, SELF_INTERSECTION = "contour flipped", "contour collapsed", "self-intersection"


def defects(default: np.ndarray, deformed: np.ndarray, on_curve: np.ndarray, contour: np.ndarray) -> set[str]:
    """Which checks the deformed outline fails: a contour's area changed sign (flipped) or fell to 0
    (collapsed), or the simplified outline has another number of contours (a new self-intersection)."""
    outline = contour >= 0
    pts0, pts1, on, cid = default[outline], deformed[outline], on_curve[outline], contour[outline]
    if cid.size == 0:
        return set()
    a0, a1 = signed_areas(pts0, cid), signed_areas(pts1, cid)
    found = set()
    if np.any(np.sign(a0) * np.sign(a1) < 0):
        found.add(FLIPPED)
    if np.any((a0 != 0) & (a1 == 0)):
        found.add(COLLAPSED)
    if simplified_contours(pts0, on, cid) != simplified_contours(pts1, on, cid):
        found.add(SELF_INTERSECTION)
    return found


def defects_at_corners(default: np.ndarray, displacements, on_curve: np.ndarray, contour: np.ndarray) -> set[str]:
    """Every check the outline fails at any corner, one (P, 2) displacement per corner."""
    return set().union(*(defects(default, default + d, on_curve, contour) for d in displacements))


def shrink_until_sound(default: np.ndarray, displacement: np.ndarray, on_curve: np.ndarray, contour: np.ndarray
                       ) -> tuple[np.ndarray, float]:
    """The displacement scaled by the largest t in 1, 1/2, 1/4, 1/8, 0 whose outline passes every check
    (t = 0 is the default outline, which always does), and t: the clamp of spec §7."""
    for t in (1.0, 0.5, 0.25, 0.125):
        if not defects(default, default + t * displacement, on_curve, contour):
            return t * displacement, t
    return np.zeros_like(displacement), 0.0
