"""FreeType renders of variable fonts: waterfall pictures and raster IoU against a real instance (spec §5).

Glyphs are rendered unhinted at a design location onto a fixed canvas, placed by FreeType's bitmap
offsets, so two fonts' bitmaps of the same glyph line up on the same origin.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def _face(path: Path | str, location: dict[str, float], size: int):
    import freetype

    face = freetype.Face(str(path))
    face.set_char_size(size * 64)
    if location:
        tags = [a.tag.decode() if isinstance(a.tag, bytes) else a.tag for a in face.get_variation_info().axes]
        defaults = {t: a.default for t, a in zip(tags, face.get_variation_info().axes)}
        face.set_var_design_coords([location.get(t, defaults[t]) for t in tags])
    return face


def glyph_bitmap(face, glyph_index: int, size: int) -> np.ndarray:
    """(2·size, 2·size) coverage of one glyph, origin at (size/2, 3·size/2)."""
    import freetype

    face.load_glyph(glyph_index, freetype.FT_LOAD_RENDER | freetype.FT_LOAD_NO_HINTING)
    slot = face.glyph
    bitmap = slot.bitmap
    canvas = np.zeros((2 * size, 2 * size), np.uint8)
    if bitmap.rows and bitmap.width:
        image = np.array(bitmap.buffer, np.uint8).reshape(bitmap.rows, bitmap.pitch)[:, : bitmap.width]
        top, left = 3 * size // 2 - slot.bitmap_top, size // 2 + slot.bitmap_left
        y0, x0 = max(top, 0), max(left, 0)
        y1, x1 = min(top + bitmap.rows, 2 * size), min(left + bitmap.width, 2 * size)
        canvas[y0:y1, x0:x1] = image[y0 - top:y1 - top, x0 - left:x1 - left]
    return canvas


def raster_iou(predicted: Path | str, real: Path | str, location: dict[str, float], glyph_names: list[str],
               size: int = 64) -> float:
    """Mean IoU of the inked pixels (coverage > 50 %) of each glyph, predicted vs. real font."""
    from fontTools.ttLib import TTFont

    faces = [_face(p, location, size) for p in (predicted, real)]
    orders = [{n: i for i, n in enumerate(TTFont(p, lazy=True).getGlyphOrder())} for p in (predicted, real)]
    scores = []
    for name in glyph_names:
        a, b = (glyph_bitmap(f, o[name], size) > 127 for f, o in zip(faces, orders))
        union = (a | b).sum()
        if union:
            scores.append((a & b).sum() / union)
    return float(np.mean(scores)) if scores else float("nan")


def text_line(path: Path | str, location: dict[str, float], text: str, size: int) -> np.ndarray:
    """One line of text rendered with FreeType's own advances at a design location."""
    face = _face(path, location, size)
    cells = []
    for char in text:
        index = face.get_char_index(char)
        cell = glyph_bitmap(face, index, size)
        advance = max(int(round(face.glyph.advance.x / 64)), 1)
        cells.append(cell[:, size // 2: size // 2 + advance])
    return np.concatenate(cells, axis=1) if cells else np.zeros((2 * size, 1), np.uint8)


def waterfall(path: Path | str, png: Path | str, text: str = "Hamburg", size: int = 48, rows: int = 5) -> Path:
    """PNG: the text at `rows` weights (top to bottom) by each width the font has (left to right)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from fontTools.ttLib import TTFont

    axes = {a.axisTag: (a.minValue, a.defaultValue, a.maxValue) for a in TTFont(path, lazy=True)["fvar"].axes}
    weights = np.linspace(axes["wght"][0], axes["wght"][2], rows) if "wght" in axes else [None]
    widths = sorted({axes["wdth"][0], axes["wdth"][1]}) if "wdth" in axes else [None]
    fig, grid = plt.subplots(len(weights), len(widths), figsize=(4 * len(widths), 1.1 * len(weights)), squeeze=False)
    for r, weight in enumerate(weights):
        for c, width in enumerate(widths):
            loc = {k: v for k, v in (("wght", weight), ("wdth", width)) if v is not None}
            grid[r][c].imshow(255 - text_line(path, loc, text, size), cmap="gray", vmin=0, vmax=255)
            grid[r][c].set_axis_off()
            grid[r][c].set_title(", ".join(f"{k} {v:g}" for k, v in loc.items()), fontsize=7)
    fig.tight_layout()
    png = Path(png)
    fig.savefig(png, dpi=80)
    plt.close(fig)
    return png
