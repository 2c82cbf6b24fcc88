"""`validate`: is a generated variable font one that every engine accepts and renders? (spec §2.3.6, §8.3)

Checks, each named in the report: the OpenType Sanitizer (OTS, the sanitizer browsers run) accepts
it; fontTools reloads every table; the instancer cuts a static font at an interior location; FreeType
renders "H" at the wght extremes with ink growing with weight; HarfBuzz's advance of "Hamburg"
strictly increases along wght (min → default → max), so advance widths really vary.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from proceedings.core.errors import ProceedingsError

TEXT = "Hamburg"


@dataclass
class Report:
    path: str
    axes: list[tuple[str, float, float, float]] = field(default_factory=list)
    instances: int = 0
    stat: bool = False
    checks: dict[str, bool] = field(default_factory=dict)
    details: dict[str, object] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(self.checks.values())

    def failed(self) -> list[str]:
        return [name for name, ok in self.checks.items() if not ok]


def ots_accepts(path: Path) -> tuple[bool, str]:
    import ots

    with tempfile.TemporaryDirectory() as tmp:
        done = ots.sanitize(str(path), str(Path(tmp) / "out.ttf"), capture_output=True)
    message = (done.stderr or b"").decode(errors="replace").strip().splitlines()
    return done.returncode == 0, message[-1] if message else ""


def hb_advance(path: Path, location: dict[str, float], text: str = TEXT) -> int:
    """HarfBuzz: the summed advance of `text` at a user-space location."""
    import uharfbuzz as hb

    face = hb.Face(path.read_bytes())
    font = hb.Font(face)
    font.set_variations(location)
    buf = hb.Buffer()
    buf.add_str(text)
    buf.guess_segment_properties()
    hb.shape(font, buf, {})
    return sum(p.x_advance for p in buf.glyph_positions)


def ft_ink(path: Path, location: dict[str, float], axes_order: list[str], char: str = "H", size: int = 64) -> int:
    """FreeType: the number of inked pixels of one glyph rendered at a design location."""
    import freetype
    import numpy as np

    face = freetype.Face(str(path))
    face.set_char_size(size * 64)
    face.set_var_design_coords([location[t] for t in axes_order])
    face.load_char(char, freetype.FT_LOAD_RENDER | freetype.FT_LOAD_NO_HINTING)
    bitmap = face.glyph.bitmap
    return int((np.array(bitmap.buffer, dtype=np.uint8) > 127).sum())


def validate(path: Path | str) -> Report:
    """Run every check on a variable font; a check that raises counts as failed, with the reason kept."""
    from fontTools.ttLib import TTFont
    from fontTools.varLib import instancer

    path = Path(path)
    report = Report(str(path))
    ok, message = ots_accepts(path)
    report.checks["ots"] = ok
    report.details["ots"] = message
    try:
        font = TTFont(path)
        font.ensureDecompiled()
        report.checks["reload"] = "fvar" in font and "gvar" in font
    except Exception as err:  # any parse failure is a failed check, reported by name
        report.checks["reload"] = False
        report.details["reload"] = str(err)
        return report
    fvar_axes = font["fvar"].axes
    report.axes = [(a.axisTag, a.minValue, a.defaultValue, a.maxValue) for a in fvar_axes]
    report.instances = len(font["fvar"].instances)
    report.stat = "STAT" in font
    report.checks["stat"] = report.stat
    interior = {a.axisTag: (a.defaultValue + (a.maxValue if a.maxValue > a.defaultValue else a.minValue)) / 2
                for a in fvar_axes}
    try:
        instancer.instantiateVariableFont(TTFont(path), interior)
        report.checks["instancer"] = True
    except Exception as err:
        report.checks["instancer"] = False
        report.details["instancer"] = str(err)
    defaults = {a.axisTag: a.defaultValue for a in fvar_axes}
    order = [a.axisTag for a in fvar_axes]
    if "wght" in defaults:
        wght = next(a for a in fvar_axes if a.axisTag == "wght")
        steps = [v for v in (wght.minValue, wght.defaultValue, wght.maxValue)]
        try:
            advances = [hb_advance(path, {**defaults, "wght": v}) for v in steps]
            inks = [ft_ink(path, {**defaults, "wght": v}, order) for v in steps]
            report.details.update(hb_advances=advances, ft_ink=inks, wght_steps=steps)
            distinct = [i for i in range(len(steps)) if i == 0 or steps[i] != steps[i - 1]]
            report.checks["harfbuzz advance increases with wght"] = all(
                advances[distinct[i]] < advances[distinct[i + 1]] for i in range(len(distinct) - 1))
            report.checks["freetype ink increases with wght"] = all(
                inks[distinct[i]] < inks[distinct[i + 1]] for i in range(len(distinct) - 1))
        except Exception as err:
            report.checks["render"] = False
            report.details["render"] = str(err)
    else:
        try:
            report.checks["render"] = hb_advance(path, defaults) > 0 and ft_ink(path, defaults, order) > 0
        except Exception as err:
            report.checks["render"] = False
            report.details["render"] = str(err)
    return report


def require_valid(path: Path) -> Report:
    report = validate(path)
    if not report.ok:
        raise ProceedingsError(f"'{path}' failed validation: {', '.join(report.failed())} "
                               f"({'; '.join(str(report.details.get(c, '')) for c in report.failed())})")
    return report
