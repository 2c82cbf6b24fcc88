"""`convert`: one static TrueType font -> a validated variable font (spec §2.3, §7).

Input checks first (not a font, CFF outlines, already variable, unknown axis, OUT = IN), then the
predictor gives every simple glyph's total displacement at every corner of the requested axes,
each deformed glyph is checked for contour flips and new self-intersections (each refused corner is first
smoothed along its contours by its own fewest passes, `repair_passes` at most; only a glyph with a corner that no
level repairs falls back to the algorithmic baseline; both counted), the font is compiled to a temporary file,
validated, and only then renamed to OUT. On any failure no OUT exists and the error names the failed check.
"""

from __future__ import annotations

import logging
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.niv.baselines import AlgorithmicBaseline
from proceedings.niv.contour_repair import repair
from proceedings.niv.data import Glyph, point_features
from proceedings.niv.export import corner_key, make_variable_font, parse_axes
from proceedings.niv.fonts import open_font
from proceedings.niv.outline_check import defects_at_corners, shrink_until_sound
from proceedings.niv.validate import Report, validate
from proceedings.niv.variations import AXES, axis_signs, corner_locations, glyph_outline, location_vector, unicode_map

log = logging.getLogger(__name__)


class Predictor(Protocol):
    def predict(self, glyphs: list[Glyph], corners: np.ndarray) -> list[np.ndarray]:
        """For each glyph, (C, P, 2) total displacements in em-normalised units (· 2/UPM)."""


@dataclass
class AlgorithmicPredictor:
    """B1 as a predictor."""
    baseline: AlgorithmicBaseline

    def predict(self, glyphs: list[Glyph], corners: np.ndarray) -> list[np.ndarray]:
        return [np.stack([self.baseline.predict(g.points, g.contour, c) for c in corners]) for g in glyphs]


@dataclass
class ModelPredictor:
    """A trained NIV as a predictor."""
    model: object  # proceedings.niv.model.NIV

    @property
    def max_points(self) -> int:
        """The most outline points the model's position table covers."""
        return self.model.config.max_points

    def predict(self, glyphs: list[Glyph], corners: np.ndarray) -> list[np.ndarray]:
        from proceedings.niv.train import predict

        return predict(self.model, glyphs, corners)


@dataclass
class Conversion:
    out: Path
    glyphs: int = 0
    over_limit: list[str] = field(default_factory=list)  # stayed static
    max_points: int = 0  # the point limit applied: --max-points, lowered to the model's position table
    repaired: list[str] = field(default_factory=list)  # refused prediction that contour smoothing made sound
    fallback: list[str] = field(default_factory=list)  # degenerate prediction -> algorithmic baseline
    fallback_checks: dict[str, int] = field(default_factory=dict)  # check -> fallback glyphs it refused (any corner)
    clamped: int = 0  # fallback corners that failed the check too and were shrunk towards the default
    seconds: dict[str, float] = field(default_factory=dict)  # predict / compile / validate
    report: Report | None = None

    @property
    def fallback_share(self) -> float:
        return len(self.fallback) / max(self.glyphs, 1)

    @property
    def repaired_share(self) -> float:
        return len(self.repaired) / max(self.glyphs, 1)


def check_input(in_path: Path, out_path: Path, convert_quadratic: bool = False):
    """The static TrueType font, or a one-line error saying what is wrong with it."""
    if out_path.resolve() == in_path.resolve():
        raise ProceedingsError(f"OUT equals IN ('{out_path}'); the input font is never overwritten, pass another path")
    font = open_font(in_path)
    if "fvar" in font or "gvar" in font:
        raise ProceedingsError(f"'{in_path}' is already a variable font (it has fvar/gvar); pass a static font")
    if "CFF " in font or "CFF2" in font:
        if not convert_quadratic:
            raise ProceedingsError(f"'{in_path}' has CFF outlines; NIV needs TrueType (glyf) outlines: re-run with "
                                   "--convert-quadratic")
        cubic_to_quadratic(font)
    if "fvar" in font or "gvar" in font:
        raise ProceedingsError(f"'{in_path}' is already a variable font (it has fvar/gvar); pass a static font")
    if "glyf" not in font:
        raise ProceedingsError(f"'{in_path}' has no glyf table: not a TrueType-outline font")
    return font


def cubic_to_quadratic(font, max_error: float = 1.0) -> None:
    """CFF -> glyf in place: cubic curves approximated by quadratics (cu2qu, within `max_error` units);
    contours reversed, since TrueType outer contours run clockwise."""
    from fontTools.pens.cu2quPen import Cu2QuPen
    from fontTools.pens.ttGlyphPen import TTGlyphPen
    from fontTools.ttLib import newTable

    order = font.getGlyphOrder()
    glyph_set = font.getGlyphSet()
    glyf = newTable("glyf")
    glyf.glyphOrder, glyf.glyphs = order, {}
    for name in order:
        pen = TTGlyphPen(glyph_set)
        glyph_set[name].draw(Cu2QuPen(pen, max_error, reverse_direction=True))
        glyf[name] = pen.glyph()
    for tag in ("CFF ", "CFF2", "VORG"):
        if tag in font:
            del font[tag]
    font["loca"], font["glyf"] = newTable("loca"), glyf
    font.sfntVersion = "\0\1\0\0"
    font["head"].glyphDataFormat = 0
    maxp = font["maxp"]
    maxp.tableVersion = 0x00010000
    for attr in ("maxTwilightPoints", "maxStorage", "maxFunctionDefs", "maxInstructionDefs", "maxStackElements",
                 "maxSizeOfInstructions", "maxComponentElements", "maxComponentDepth"):
        setattr(maxp, attr, 0)
    maxp.maxZones = 1
    post = font["post"]
    post.formatType, post.extraNames, post.mapping, post.glyphOrder = 2.0, [], {}, order


def static_glyphs(font, max_points: int) -> tuple[list[Glyph], list[str]]:
    """The font's simple glyphs as model inputs, and the names of those over the point limit."""
    upm = font["head"].unitsPerEm
    unicodes = unicode_map(font)
    glyphs, over = [], []
    glyf = font["glyf"]
    for name in font.getGlyphOrder():
        if glyf[name].isComposite() or glyf[name].numberOfContours <= 0:
            continue
        outline = glyph_outline(font, name, unicodes)
        if outline.n_points > max_points:
            over.append(name)
            continue
        glyphs.append(Glyph("", "", name, outline.unicode, upm,
                            point_features(outline.points, outline.on_curve, outline.position_in_contour(),
                                           outline.contour, upm),
                            (outline.points * 2.0 / upm).astype(np.float32), outline.contour,
                            np.zeros((0, len(AXES)), np.float32), np.zeros((0, len(outline.points), 2), np.float32)))
    return glyphs, over


def sound_fallback(glyph: Glyph, corner_vectors: np.ndarray, fallback: AlgorithmicBaseline,
                   result: Conversion) -> np.ndarray:
    """(C, P, 2) B1's displacements for a refused glyph, each corner shrunk until it passes the check."""
    sound = []
    for c in corner_vectors:
        shrunk, t = shrink_until_sound(glyph.points, fallback.predict(glyph.points, glyph.contour, c),
                                       glyph.features[:, 2], glyph.contour)
        result.clamped += t < 1.0
        sound.append(shrunk)
    return np.stack(sound)


def convert(in_path: Path | str, out_path: Path | str, axes: str, predictor: Predictor,
            fallback: AlgorithmicBaseline, max_points: int = 504, convert_quadratic: bool = False,
            repair_passes: int = 0) -> Conversion:
    """Static TTF (or CFF OTF with `convert_quadratic`) -> variable TTF at `out_path`, validated first;
    `repair_passes`: the most contour-smoothing passes tried on each refused corner before the fallback (0: none)."""
    in_path, out_path = Path(in_path), Path(out_path)
    font = check_input(in_path, out_path, convert_quadratic)
    axis_ranges = parse_axes(axes, font)
    corners = corner_locations(axis_signs(axis_ranges))
    corner_vectors = np.stack([location_vector(c) for c in corners])
    max_points = min(max_points, getattr(predictor, "max_points", max_points))
    glyphs, over = static_glyphs(font, max_points)
    for name in over:
        log.warning("glyph '%s' has more than %d points: it stays static", name, max_points)
    result = Conversion(out_path, glyphs=len(glyphs), over_limit=over, max_points=max_points)

    start = time.perf_counter()
    predicted = predictor.predict(glyphs, corner_vectors)
    scale = font["head"].unitsPerEm / 2.0
    displacements = {}
    for glyph, pred in zip(glyphs, predicted):
        failed = defects_at_corners(glyph.points, pred, glyph.features[:, 2], glyph.contour)
        repaired = repair(glyph.points, pred, glyph.features[:, 2], glyph.contour, repair_passes) if failed else None
        if repaired is not None:
            result.repaired.append(glyph.name)
            pred = repaired[0]
        elif failed:
            result.fallback.append(glyph.name)
            for check in failed:
                result.fallback_checks[check] = result.fallback_checks.get(check, 0) + 1
            pred = sound_fallback(glyph, corner_vectors, fallback, result)
        displacements[glyph.name] = {corner_key(c): pred[i] * scale for i, c in enumerate(corners)}
    result.seconds["predict"] = time.perf_counter() - start

    start = time.perf_counter()
    make_variable_font(font, axis_ranges, displacements)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp_name = tempfile.mkstemp(suffix=".ttf", dir=out_path.parent, prefix=f".{out_path.stem}-")
    os.close(handle)
    tmp = Path(tmp_name)
    try:
        font.save(tmp)
        result.seconds["compile"] = time.perf_counter() - start
        start = time.perf_counter()
        result.report = validate(tmp)
        result.seconds["validate"] = time.perf_counter() - start
        if not result.report.ok:
            failed = result.report.failed()
            raise ProceedingsError(f"the converted font failed validation ({', '.join(failed)}); no '{out_path}' "
                                   "was written")
        tmp.replace(out_path)
    finally:
        tmp.unlink(missing_ok=True)
    result.report.path = str(out_path)
    return result
