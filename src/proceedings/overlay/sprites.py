"""The synthetic world's objects: eight shapes, eight colours, four textures (spec §4 "sprites").

A sprite is resolution-free: centre and radius in units of the image side, a rotation, a depth `z`.
`amodal_mask` rasterises its full extent at any size by testing pixel centres against the shape's
implicit inside-function, so the same scene renders exactly at the 64x64 canvas and the 32x32 (or
16x16) training resolution, and every mask is exact.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import lru_cache

import numpy as np

SHAPES = ("circle", "square", "triangle", "diamond", "ring", "cross", "star", "heart")
COLOURS = {  # saturated, far apart, none grey: the background is grey texture
    "red": (0.90, 0.10, 0.10), "green": (0.10, 0.75, 0.15), "blue": (0.15, 0.25, 0.95),
    "yellow": (0.95, 0.90, 0.10), "cyan": (0.10, 0.85, 0.90), "magenta": (0.90, 0.15, 0.85),
    "orange": (1.00, 0.55, 0.00), "purple": (0.50, 0.10, 0.60),
}
COLOUR_NAMES = tuple(COLOURS)
TEXTURES = ("solid", "striped", "dotted", "checkered")
SIZES = {"small": 0.12, "medium": 0.16, "large": 0.20}  # radius / image side; >= 4 px at 32x32 training
TEXTURE_SHADE = 0.8  # the pattern's darker cells keep 80 % of the colour, so colour stays readable


@dataclass(frozen=True)
class Sprite:
    shape: str
    colour: str
    texture: str
    size: str
    cx: float  # centre, fraction of the image side
    cy: float
    radius: float
    rotation: float  # radians
    z: int  # depth: higher is nearer; painted later

    def to_dict(self) -> dict:
        return asdict(self)


def _inside(shape: str, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Whether points (u, v) of the sprite's own frame (radius 1, y down) lie inside `shape`."""
    r = np.hypot(u, v)
    if shape == "circle":
        return r <= 1.0
    if shape == "square":
        return np.maximum(abs(u), abs(v)) <= 0.8
    if shape == "diamond":
        return abs(u) + abs(v) <= 1.0
    if shape == "ring":
        return (r <= 1.0) & (r >= 0.5)
    if shape == "cross":
        return ((abs(u) <= 0.33) & (abs(v) <= 1.0)) | ((abs(v) <= 0.33) & (abs(u) <= 1.0))
    if shape == "triangle":  # equilateral, circumradius 1: apex at v = -1 (up), base at v = 0.5
        return (v <= 0.5) & (abs(u) <= np.sqrt(3) / 2 * (v + 1) / 1.5)
    if shape == "star":  # five points: radius between 0.45 and 1 as a function of angle
        angle = np.arctan2(u, -v) % (2 * np.pi / 5)
        edge = 0.45 + 0.55 * np.abs(angle - np.pi / 5) / (np.pi / 5)
        return r <= edge
    if shape == "heart":
        x, y = 1.15 * u, -1.15 * v + 0.25
        return (x * x + y * y - 1) ** 3 - x * x * y ** 3 <= 0
    raise ValueError(f"unknown shape {shape!r}")


@lru_cache(maxsize=8)
def _pixel_centres(size: int) -> tuple[np.ndarray, np.ndarray]:
    axis = (np.arange(size) + 0.5) / size
    return axis[:, None], axis[None, :]  # (size, 1) rows y, (1, size) columns x


def frame(sprite: Sprite, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Pixel centres of a size x size image in the sprite's frame (rotated, scaled by its radius)."""
    y, x = _pixel_centres(size)
    dx, dy = (x - sprite.cx) / sprite.radius, (y - sprite.cy) / sprite.radius
    c, s = np.cos(sprite.rotation), np.sin(sprite.rotation)
    return c * dx + s * dy, -s * dx + c * dy


@lru_cache(maxsize=8192)
def amodal_mask(sprite: Sprite, size: int) -> np.ndarray:
    """The sprite's full extent, occluders ignored: (size, size) bool, read-only (cached)."""
    u, v = frame(sprite, size)
    mask = _inside(sprite.shape, u, v)
    mask.setflags(write=False)
    return mask


def texture_shade(sprite: Sprite, size: int) -> np.ndarray:
    """Per-pixel brightness factor of the sprite's texture (1 or TEXTURE_SHADE), in its own frame."""
    u, v = frame(sprite, size)
    if sprite.texture == "striped":
        pattern = np.floor((u + 2) * 2.5) % 2 == 1
    elif sprite.texture == "dotted":
        pattern = np.hypot((u * 2.5) % 1 - 0.5, (v * 2.5) % 1 - 0.5) < 0.25
    elif sprite.texture == "checkered":
        pattern = (np.floor((u + 2) * 2.5) + np.floor((v + 2) * 2.5)) % 2 == 1
    else:
        pattern = np.zeros_like(u, dtype=bool)
    return np.where(pattern, TEXTURE_SHADE, 1.0)


SYMMETRY_DEGREES = {"circle": 360, "ring": 360, "square": 90, "cross": 90, "diamond": 90, "star": 72,
                    "triangle": 120, "heart": 360}  # rotations beyond these repeat the shape (circle: any)


@lru_cache(maxsize=None)
def extents(shape: str, degrees: int) -> tuple[float, float, float, float]:
    """(min x, max x, min y, max y) image offsets of `shape` rotated by `degrees`, radius 1.

    Used to place a shape template inside a detected box (amodal completion, pipeline stage 4).
    """
    axis = np.linspace(-1.05, 1.05, 421)
    v, u = np.meshgrid(axis, axis, indexing="ij")
    inside = _inside(shape, u, v)
    c, s = np.cos(np.radians(degrees)), np.sin(np.radians(degrees))
    x, y = c * u[inside] - s * v[inside], s * u[inside] + c * v[inside]  # frame -> image offsets
    return float(x.min()), float(x.max()), float(y.min()), float(y.max())
