"""Editable masters (spec §2.3, alternative export): one static TTF per corner plus a `.designspace`.

The variable font NIV wrote is cut by fontTools' instancer at the default and at every corner; the
cuts are point-compatible by construction (gvar only moves points), so a designer can edit them in a
font editor and rebuild with `fontTools.varLib.build`, which this module runs once to prove it works.
"""

from __future__ import annotations

from pathlib import Path

from proceedings.niv.variations import axis_signs, corner_locations, font_axes


def user_location(axes: dict[str, tuple[float, float, float]], corner: dict[str, int]) -> dict[str, float]:
    """A normalised corner in user space: −1 -> min, 0 -> default, +1 -> max."""
    return {t: (hi if corner.get(t, 0) > 0 else lo if corner.get(t, 0) < 0 else d) for t, (lo, d, hi) in axes.items()}


def export_masters(vf_path: Path | str, designspace_path: Path | str) -> list[Path]:
    """Write the default and corner masters next to the designspace; returns their paths."""
    from fontTools.designspaceLib import AxisDescriptor, DesignSpaceDocument, SourceDescriptor
    from fontTools.ttLib import TTFont
    from fontTools.varLib import build, instancer

    vf_path, designspace_path = Path(vf_path), Path(designspace_path)
    designspace_path.parent.mkdir(parents=True, exist_ok=True)
    axes = font_axes(TTFont(vf_path, lazy=True))
    doc = DesignSpaceDocument()
    for tag, (lo, default, hi) in axes.items():
        axis = AxisDescriptor()
        axis.tag, axis.name, axis.minimum, axis.default, axis.maximum = tag, tag, lo, default, hi
        doc.addAxis(axis)
    masters = []
    for corner in [{}] + corner_locations(axis_signs(axes)):
        location = user_location(axes, corner)
        name = "default" if not corner else "_".join(f"{t}{v:+d}" for t, v in corner.items())
        path = designspace_path.parent / f"{designspace_path.stem}-{name}.ttf"
        instancer.instantiateVariableFont(TTFont(vf_path), location).save(path)
        source = SourceDescriptor()
        source.path, source.location = str(path), location
        doc.addSource(source)
        masters.append(path)
    doc.write(designspace_path)
    build(DesignSpaceDocument.fromfile(designspace_path))  # the masters really are compatible
    return masters
