"""The dataset: variation tuples from variable Google Fonts, sharded per font file (spec §2.1, §6).

`build_dataset` walks the families of a split, extracts for every simple glyph with gvar data its
default outline and the total displacement at each corner (`variations.py`), and caches one `.npz`
shard per font file under `$PROCEEDINGS_CACHE/niv/shards`, keyed by the file's hash and the
extraction settings. Coordinates are normalised by the em: `xy · 2/UPM − 1`, displacements `· 2/UPM`.
Splits are by family (Roman and Italic together), committed in `splits.json`; the code-point split
holds some characters of the training families out of training.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.core.progress import progress_bar
from proceedings.niv.fonts import FontFile, directory_files, installed_families, open_font, variable_files
from proceedings.niv.variations import (AXES, PHANTOMS, axis_signs, corner_locations, font_axes, glyph_outline,
                                        location_vector, simple_glyphs, total_displacement, unicode_map)

log = logging.getLogger(__name__)
SPLITS = json.loads((Path(__file__).parent / "splits.json").read_text())
CHARSETS = {"ascii": range(0x20, 0x7F), "latin": range(0x20, 0x250), "all": None}  # code points kept
EXTRACTION_VERSION = 3  # bump when the shard format or the extraction changes


def cache_root() -> Path:
    root = Path(os.environ.get("PROCEEDINGS_CACHE", Path.home() / ".cache" / "proceedings")) / "niv"
    root.mkdir(parents=True, exist_ok=True)
    return root


@dataclass
class Glyph:
    """One glyph of one font, ready for the model: normalised features and corner targets."""
    family: str
    font: str  # file name
    name: str
    unicode: int
    upm: int
    features: np.ndarray  # (P, 8) see point_features
    points: np.ndarray  # (P, 2) default outline with real phantom points, font units · 2/UPM
    contour: np.ndarray  # (P,) contour index, -1 for phantom points
    corners: np.ndarray  # (C, len(AXES)) normalised corner locations
    displacement: np.ndarray  # (C, P, 2) total displacement · 2/UPM

    @property
    def n_points(self) -> int:
        return len(self.features)


@dataclass
class Dataset:
    glyphs: list[Glyph] = field(default_factory=list)

    def tuples(self) -> int:
        return sum(len(g.corners) for g in self.glyphs)

    def families(self) -> list[str]:
        return sorted({g.family for g in self.glyphs})

    def where(self, keep) -> "Dataset":
        return Dataset([g for g in self.glyphs if keep(g)])


def point_features(points: np.ndarray, on_curve: np.ndarray, position: np.ndarray, contour: np.ndarray,
                   upm: int) -> np.ndarray:
    """(P, 8): normalised x, y; on-curve flag (−1 phantom); position in contour; unit directions to the
    previous and next point of the contour. Unlike the official code (x, y, on, pos, phantoms at zero),
    phantom points keep their real coordinates (the advance point carries the advance width) and every
    point sees its local tangent, from which the outward normal a weight change moves along follows."""
    xy = points * 2.0 / upm - 1.0
    towards = np.zeros((len(points), 4), np.float64)
    for c in np.unique(contour[contour >= 0]):
        idx = np.flatnonzero(contour == c)
        pts = points[idx].astype(np.float64)
        for k, neighbour in enumerate((np.roll(pts, 1, axis=0), np.roll(pts, -1, axis=0))):
            step = neighbour - pts
            towards[idx, 2 * k:2 * k + 2] = step / np.maximum(np.linalg.norm(step, axis=1, keepdims=True), 1e-9)
    return np.column_stack([xy, on_curve, position, towards]).astype(np.float32)


def extract_font(font_file: FontFile, max_points: int, charset: str, max_active: int = 2) -> dict:
    """Every simple varied glyph of one variable font with its corner displacements, as arrays for a shard."""
    font = open_font(font_file.path)
    if "gvar" not in font or "glyf" not in font:
        raise ProceedingsError(f"'{font_file.path}' is not a variable TrueType font (no glyf/gvar)")
    upm = font["head"].unitsPerEm
    corners = corner_locations(axis_signs(font_axes(font)), max_active)
    if not corners:
        return {}
    unicodes = unicode_map(font)
    rows: dict[str, list] = {"name": [], "unicode": [], "features": [], "points": [], "contour": [],
                             "displacement": [], "n_points": []}
    for name in simple_glyphs(font):
        if CHARSETS[charset] is not None and unicodes.get(name, -1) not in CHARSETS[charset]:
            continue
        outline = glyph_outline(font, name, unicodes)
        if outline.n_points > max_points:
            continue
        feats = point_features(outline.points, outline.on_curve, outline.position_in_contour(), outline.contour, upm)
        disp = np.stack([total_displacement(font, outline, loc) for loc in corners]) * 2.0 / upm
        rows["name"].append(name)
        rows["unicode"].append(outline.unicode)
        rows["features"].append(feats)
        rows["points"].append((outline.points * 2.0 / upm).astype(np.float32))
        rows["contour"].append(outline.contour)
        rows["displacement"].append(disp.astype(np.float32))
        rows["n_points"].append(len(feats))
    if not rows["name"]:
        return {}
    return {"name": np.array(rows["name"]), "unicode": np.array(rows["unicode"], dtype=np.int64),
            "n_points": np.array(rows["n_points"], dtype=np.int64),
            "features": np.concatenate(rows["features"]), "points": np.concatenate(rows["points"]),
            "contour": np.concatenate(rows["contour"]),
            "displacement": np.concatenate([d.transpose(1, 0, 2) for d in rows["displacement"]]),  # (ΣP, C, 2)
            "corners": np.stack([location_vector(c) for c in corners]), "upm": np.int64(upm)}


def shard_path(font_file: FontFile, max_points: int, charset: str) -> Path:
    digest = hashlib.sha256(font_file.path.read_bytes()).hexdigest()[:16]
    key = f"{digest}-p{max_points}-{charset}-v{EXTRACTION_VERSION}"
    return cache_root() / "shards" / f"{font_file.path.stem.replace('[', '_').replace(']', '_')}-{key}.npz"


def load_shard(font_file: FontFile, max_points: int, charset: str) -> list[Glyph]:
    """A font's glyphs from its cached shard, extracting (and caching) it on first use."""
    path = shard_path(font_file, max_points, charset)
    if not path.exists():
        arrays = extract_font(font_file, max_points, charset)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, **arrays) if arrays else np.savez(tmp, empty=np.zeros(0))
        tmp.replace(path)
    with np.load(path) as shard:
        if "empty" in shard:
            return []
        return _glyphs_from_shard(dict(shard), font_file)


def _glyphs_from_shard(shard: dict, font_file: FontFile) -> list[Glyph]:
    glyphs, start = [], 0
    for name, code, n in zip(shard["name"], shard["unicode"], shard["n_points"]):
        stop = start + int(n)
        glyphs.append(Glyph(font_file.family, font_file.path.name, str(name), int(code), int(shard["upm"]),
                            shard["features"][start:stop], shard["points"][start:stop],
                            shard["contour"][start:stop], shard["corners"],
                            shard["displacement"][start:stop].transpose(1, 0, 2)))
        start = stop
    return glyphs


def build_dataset(families: list[str] | list[FontFile], max_points: int = 504, charset: str = "all",
                  label: str = "extract") -> Dataset:
    """All variable files of the given fontpkg families (slugs), or the given font files, one cached shard per file."""
    if charset not in CHARSETS:
        raise ProceedingsError(f"unknown charset '{charset}'; choose one of: {', '.join(CHARSETS)}")
    files = [f for family in families for f in ([family] if isinstance(family, FontFile) else variable_files(family))]
    if not files:
        raise ProceedingsError(f"no variable TrueType files in families {families}")
    glyphs: list[Glyph] = []
    for font_file in progress_bar(files, desc=f"{label} NIV tuples", total=len(files)):
        glyphs += load_shard(font_file, max_points, charset)
    return Dataset(glyphs)


def split(name: str) -> dict:
    """A committed family split: {"train": [...slugs], "test": [...slugs], ...}. A "train" of "installed" is
    every installed variable fontpkg family that no split holds out (`fonts.installed_families`)."""
    if name not in SPLITS["splits"]:
        raise ProceedingsError(f"unknown split '{name}'; choose one of: {', '.join(SPLITS['splits'])}")
    chosen = dict(SPLITS["splits"][name])
    if chosen["train"] == "installed":
        chosen["train"] = [slug for slug in installed_families() if slug not in held_out_families()]
    return chosen


def held_out_families() -> set[str]:
    """Every family some split holds out: never trained on, whichever fonts a run trains on."""
    return {slug for s in SPLITS["splits"].values() for slug in s["test"]}


def directory_training_files(fonts_dir: Path | str) -> list[FontFile]:
    """`--fonts-dir`: the variable fonts of a local font tree, less the held-out families."""
    return [f for f in directory_files(fonts_dir) if f.slug not in held_out_families()]


def held_out_code_point(code: int) -> bool:
    """The code-point split: these characters of the training families are never trained on."""
    return code in set(SPLITS["held_out_code_points"])


__all__ = ["AXES", "PHANTOMS", "Dataset", "Glyph", "build_dataset", "split", "held_out_code_point"]
