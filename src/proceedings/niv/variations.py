"""Variation tuples: a glyph's default outline and its total displacement at axis corners (spec §2.1).

For a variable TrueType font, a simple glyph's position at a normalised location `loc` is its default
outline (with the 4 phantom points: left side bearing, advance, top, bottom) plus
    Σ_tv supportScalar(loc, tv.axes) · IUP(tv.deltas),
where sparse deltas are completed by interpolation of untouched points (`iup_delta`). That sum is the
"total" displacement the model learns to predict ("prediction_type = total" in the official code).
Corners are the points of {-1, 0, +1}^A with one or two non-zero axes (delta level 2); an axis only
has the signs its range allows (wdth 75..100 with default 100 has no +1 side).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

AXES = ("wght", "wdth", "opsz", "slnt")  # the axes NIV models; the order of every location vector
PHANTOMS = 4


@dataclass
class GlyphOutline:
    """One simple glyph's default outline, phantom points last."""
    name: str
    points: np.ndarray  # (N+4, 2) font units; the last 4 are the phantom points
    on_curve: np.ndarray  # (N+4,) 1 on-curve, 0 off-curve, -1 phantom
    contour: np.ndarray  # (N+4,) contour index, -1 for phantom points
    end_points: list[int]  # last point index of each contour
    unicode: int  # the glyph's first code point, -1 if unmapped

    @property
    def n_points(self) -> int:
        return len(self.points) - PHANTOMS

    def position_in_contour(self) -> np.ndarray:
        """k / (len - 1) for point k of its contour (spec §2.2 point features); phantom point k gets k/3,
        so the model can tell the advance point from the other three."""
        pos = np.zeros(len(self.points), dtype=np.float32)
        pos[-PHANTOMS:] = np.arange(PHANTOMS) / (PHANTOMS - 1)
        start = 0
        for end in self.end_points:
            length = end - start + 1
            pos[start:end + 1] = np.arange(length) / max(length - 1, 1)
            start = end + 1
        return pos


def font_axes(font) -> dict[str, tuple[float, float, float]]:
    """The fvar axes NIV models: tag -> (min, default, max) in user space."""
    if "fvar" not in font:
        return {}
    return {a.axisTag: (a.minValue, a.defaultValue, a.maxValue) for a in font["fvar"].axes if a.axisTag in AXES}


def axis_signs(axes: dict[str, tuple[float, float, float]]) -> dict[str, tuple[int, ...]]:
    """For each axis, the normalised directions its range allows: -1 below the default, +1 above."""
    return {tag: tuple(s for s, ok in ((-1, lo < default), (1, hi > default)) if ok)
            for tag, (lo, default, hi) in axes.items()}


def corner_locations(signs: dict[str, tuple[int, ...]], max_active: int = 2) -> list[dict[str, int]]:
    """Every corner with 1..max_active non-zero axes, one-axis corners first (the export order)."""
    corners = []
    for order in range(1, max_active + 1):
        for tags in itertools.combinations([t for t in AXES if signs.get(t)], order):
            for values in itertools.product(*(signs[t] for t in tags)):
                corners.append(dict(zip(tags, values)))
    return corners


def location_vector(loc: dict[str, float]) -> np.ndarray:
    """A location as a vector over AXES (missing axes at their default, 0)."""
    return np.array([float(loc.get(tag, 0.0)) for tag in AXES], dtype=np.float32)


def simple_glyphs(font, varied_only: bool = True) -> list[str]:
    """Names of the simple (non-composite, non-empty) glyphs; with gvar data when `varied_only`."""
    glyf = font["glyf"]
    variations = font["gvar"].variations if "gvar" in font else {}
    names = []
    for name in font.getGlyphOrder():
        glyph = glyf[name]
        if glyph.isComposite() or glyph.numberOfContours <= 0:
            continue
        if varied_only and not variations.get(name):
            continue
        names.append(name)
    return names


def glyph_outline(font, name: str, unicode_of: dict[str, int] | None = None) -> GlyphOutline:
    """The default outline of a simple glyph with its 4 phantom points."""
    glyf = font["glyf"]
    coords, controls = glyf._getCoordinatesAndControls(name, font["hmtx"].metrics, _vertical_metrics(font))
    n = len(coords) - PHANTOMS
    flags = np.asarray(controls.flags, dtype=np.int16)[:n] & 1
    contour = np.full(n + PHANTOMS, -1, dtype=np.int16)
    start = 0
    for index, end in enumerate(controls.endPts):
        contour[start:end + 1] = index
        start = end + 1
    return GlyphOutline(name=name, points=np.asarray(coords, dtype=np.float64),
                        on_curve=np.concatenate([flags, -np.ones(PHANTOMS, dtype=np.int16)]),
                        contour=contour, end_points=list(controls.endPts),
                        unicode=(unicode_of or {}).get(name, -1))


def total_displacement(font, outline: GlyphOutline, loc: dict[str, float]) -> np.ndarray:
    """Σ supportScalar(loc, tv.axes) · IUP(tv) over the glyph's tuple variations: (N+4, 2) font units."""
    from fontTools.varLib.iup import iup_delta
    from fontTools.varLib.models import supportScalar

    coords = [tuple(p) for p in outline.points]
    total = np.zeros_like(outline.points)
    for tv in font["gvar"].variations.get(outline.name, []):
        scalar = supportScalar(loc, tv.axes)
        if not scalar:
            continue
        deltas = tv.coordinates
        if None in deltas:
            deltas = iup_delta(deltas, coords, outline.end_points)
        total += scalar * np.asarray(deltas, dtype=np.float64)
    return total


def _vertical_metrics(font):
    return font["vmtx"].metrics if "vmtx" in font else None


def unicode_map(font) -> dict[str, int]:
    """glyph name -> its smallest code point."""
    best: dict[str, int] = {}
    for code, name in (font.getBestCmap() or {}).items():
        if name not in best or code < best[name]:
            best[name] = code
    return best
