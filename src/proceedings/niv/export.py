"""Corner displacements -> a standard OpenType variable font (spec §2.3).

gvar by inclusion–exclusion: corners are emitted in order of their number of non-zero axes. A tuple
with peak p (support [0, p] per axis) has scalar 1 at every corner that contains p's axes with p's
signs, so the delta emitted for corner c is its total displacement minus the already-emitted deltas
of its sub-corners: D_c = T_c − Σ_{c' ⊊ c} D_{c'}. Deltas are rounded with the residual carried
(each emitted delta is rounded after subtracting the rounded lower-order ones), so every corner is
reproduced within half a unit. The 4 phantom points are included, so advance widths vary.

Beyond the official export (which writes −1..1 user ranges and nothing else): fvar with real user
ranges, named instances, STAT, dehinting, and phantom deltas for composites (they follow their first
component's advance).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.niv.variations import AXES, PHANTOMS

AXIS_NAMES = {"wght": "Weight", "wdth": "Width", "opsz": "Optical size", "slnt": "Slant"}
DEFAULT_RANGES = {"wght": (100.0, None, 900.0), "wdth": (75.0, 100.0, 100.0), "opsz": (8.0, 14.0, 72.0),
                  "slnt": (-12.0, 0.0, 0.0)}  # None: the static font's own OS/2 weight class
WEIGHT_NAMES = {100: "Thin", 200: "ExtraLight", 300: "Light", 400: "Regular", 500: "Medium", 600: "SemiBold",
                700: "Bold", 800: "ExtraBold", 900: "Black"}
HINTING_TABLES = ("fpgm", "prep", "cvt ", "hdmx", "LTSH", "VDMX", "cvar")

Corner = tuple[tuple[str, int], ...]  # (("wght", 1), ("wdth", -1)): sorted by AXES order


def corner_key(loc: Mapping[str, float]) -> Corner:
    return tuple((tag, int(loc[tag])) for tag in AXES if loc.get(tag, 0))


def parse_axes(text: str, font=None) -> dict[str, tuple[float, float, float]]:
    """'wght,wdth' or 'wght=100:400:900,wdth=75:100:100' -> tag -> (min, default, max) in user space."""
    axes = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        tag, _, spec = part.partition("=")
        if tag not in AXES:
            raise ProceedingsError(f"unknown axis tag '{tag}'; supported: {', '.join(AXES)}")
        if spec:
            try:
                lo, default, hi = (float(v) for v in spec.split(":"))
            except ValueError:
                raise ProceedingsError(f"axis '{part}': write TAG=MIN:DEFAULT:MAX, e.g. wght=100:400:900") from None
        else:
            lo, default, hi = DEFAULT_RANGES[tag]
            if default is None:
                default = float(font["OS/2"].usWeightClass) if font is not None and "OS/2" in font else 400.0
        if not lo <= default <= hi or lo == hi:
            raise ProceedingsError(f"axis '{tag}': need MIN <= DEFAULT <= MAX with MIN < MAX, got {lo}:{default}:{hi}")
        axes[tag] = (lo, default, hi)
    if not axes:
        raise ProceedingsError(f"no axes given; name some of: {', '.join(AXES)}")
    return axes


def gvar_tuples(displacements: Mapping[Corner, np.ndarray]):
    """Inclusion–exclusion: total displacement per corner -> TupleVariations (peak = corner)."""
    from fontTools.ttLib.tables.TupleVariation import TupleVariation

    emitted: dict[Corner, np.ndarray] = {}
    for corner in sorted(displacements, key=len):
        delta = displacements[corner].astype(np.float64).copy()
        for order in range(1, len(corner)):
            for sub in itertools.combinations(corner, order):
                delta -= emitted.get(sub, 0.0)
        emitted[corner] = np.round(delta)
    variations = []
    for corner, delta in emitted.items():
        if not np.any(delta):
            continue
        region = {tag: ((0.0, 1.0, 1.0) if sign > 0 else (-1.0, -1.0, 0.0)) for tag, sign in corner}
        variations.append(TupleVariation(region, [tuple(int(v) for v in d) for d in delta]))
    return variations


def dehint(font) -> None:
    """Drop hinting tables and glyph programs: static hints would be wrong for varied outlines."""
    for tag in HINTING_TABLES:
        if tag in font:
            del font[tag]
    glyf = font["glyf"]
    for name in font.getGlyphOrder():
        glyf[name].removeHinting()
    maxp = font["maxp"]
    for attr in ("maxZones", "maxTwilightPoints", "maxStorage", "maxFunctionDefs", "maxInstructionDefs",
                 "maxStackElements", "maxSizeOfInstructions"):
        if hasattr(maxp, attr):
            setattr(maxp, attr, 1 if attr == "maxZones" else 0)


def add_fvar(font, axes: Mapping[str, tuple[float, float, float]]) -> None:
    """fvar with the user-space ranges, and named instances (weights x {default width, narrowest})."""
    from fontTools.ttLib import newTable
    from fontTools.ttLib.tables._f_v_a_r import Axis, NamedInstance

    name = font["name"]
    fvar = newTable("fvar")
    for tag in AXES:
        if tag not in axes:
            continue
        axis = Axis()
        axis.axisTag, (axis.minValue, axis.defaultValue, axis.maxValue) = tag, axes[tag]
        axis.axisNameID = name.addName(AXIS_NAMES[tag])
        fvar.axes.append(axis)
    for coords, label in instance_grid(axes):
        instance = NamedInstance()
        instance.coordinates = coords
        instance.subfamilyNameID = name.addName(label)
        fvar.instances.append(instance)
    font["fvar"] = fvar


def instance_grid(axes: Mapping[str, tuple[float, float, float]]) -> list[tuple[dict[str, float], str]]:
    """Named instances: the standard weights inside the wght range (or the default), at the default
    width and, when the width axis narrows, at its narrowest ("Condensed")."""
    defaults = {tag: d for tag, (_, d, _) in axes.items()}
    weights = [w for w in WEIGHT_NAMES if "wght" in axes and axes["wght"][0] <= w <= axes["wght"][2]]
    weights = weights or [None]
    widths = [None] + ([axes["wdth"][0]] if "wdth" in axes and axes["wdth"][0] < axes["wdth"][1] else [])
    grid = []
    for width in widths:
        for weight in weights:
            coords = dict(defaults)
            parts = []
            if width is not None:
                coords["wdth"] = width
                parts.append("Condensed")
            if weight is not None:
                coords["wght"] = float(weight)
                parts.append(WEIGHT_NAMES[weight])
            label = " ".join(p for p in parts if not (p == "Regular" and len(parts) > 1)) or "Regular"
            grid.append((coords, label))
    return grid


def add_stat(font, axes: Mapping[str, tuple[float, float, float]]) -> None:
    """STAT: one design axis per fvar axis, with the named weights (Regular elidable) as axis values."""
    from fontTools.otlLib.builder import buildStatTable

    stat_axes = []
    for tag in (t for t in AXES if t in axes):
        lo, default, hi = axes[tag]
        if tag == "wght":
            values = [{"value": float(w), "name": n, **({"flags": 0x2} if w == 400 else {})}
                      for w, n in WEIGHT_NAMES.items() if lo <= w <= hi]
        else:
            values = [{"value": default, "name": "Normal" if tag != "opsz" else f"{default:g}pt", "flags": 0x2}]
        stat_axes.append({"tag": tag, "name": AXIS_NAMES[tag], "values": values})
    buildStatTable(font, stat_axes, elidedFallbackName="Regular")


def add_gvar(font, glyph_displacements: Mapping[str, Mapping[Corner, np.ndarray]]) -> None:
    """gvar for the predicted simple glyphs; composites get phantom deltas of their first component."""
    from fontTools.ttLib import newTable
    from fontTools.ttLib.tables.TupleVariation import TupleVariation

    gvar = newTable("gvar")
    gvar.version, gvar.reserved = 1, 0
    gvar.variations = {name: gvar_tuples(d) for name, d in glyph_displacements.items()}
    glyf = font["glyf"]
    for name in font.getGlyphOrder():
        glyph = glyf[name]
        if not glyph.isComposite():
            continue
        base = glyph.components[0].glyphName
        phantoms = [(tv.axes, tv.coordinates[-PHANTOMS:]) for tv in gvar.variations.get(base, [])]
        if phantoms:
            zeros = [(0, 0)] * len(glyph.components)
            gvar.variations[name] = [TupleVariation(dict(axes), zeros + list(p)) for axes, p in phantoms]
    font["gvar"] = gvar


def make_variable_font(static_font, axes: Mapping[str, tuple[float, float, float]],
                       glyph_displacements: Mapping[str, Mapping[Corner, np.ndarray]]):
    """The static font (modified in place) turned variable: dehinted, fvar, gvar, STAT."""
    if "glyf" not in static_font:
        raise ProceedingsError("the font has no TrueType outlines (glyf); convert CFF first with --convert-quadratic")
    dehint(static_font)
    add_fvar(static_font, axes)
    add_gvar(static_font, glyph_displacements)
    add_stat(static_font, axes)
    return static_font
