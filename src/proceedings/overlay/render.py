"""The 2.5D layered sprite rasteriser: paint back to front, so every visible mask is exact (spec §4).

The background is a grey crop of one of scikit-image's real textures (brick, grass, gravel) or a flat
grey, a pure function of the sample's generator, so a scene re-renders identically at any size.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from proceedings.overlay.sprites import COLOURS, Sprite, amodal_mask, texture_shade

BACKGROUNDS = ("brick", "grass", "gravel", "flat")
GREY_RANGE = (0.35, 0.65)  # background brightness: grey, never one of the saturated object colours


@dataclass(frozen=True)
class Background:
    kind: str  # one of BACKGROUNDS
    x0: float  # crop corner and side, fractions of the texture image
    y0: float
    side: float
    level: float  # flat grey level (or the texture's mean)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "x0": self.x0, "y0": self.y0, "side": self.side, "level": self.level}


def sample_background(rng: np.random.Generator) -> Background:
    side = float(rng.uniform(0.25, 0.5))
    return Background(str(rng.choice(BACKGROUNDS)), float(rng.uniform(0, 1 - side)), float(rng.uniform(0, 1 - side)),
                      side, float(rng.uniform(*GREY_RANGE)))


@lru_cache(maxsize=None)
def _texture(kind: str) -> np.ndarray:
    from skimage import data

    image = getattr(data, kind)().astype(np.float64)
    image = image.mean(axis=2) if image.ndim == 3 else image
    return (image - image.min()) / max(image.max() - image.min(), 1e-9)


def background_image(background: Background, size: int) -> np.ndarray:
    """(size, size, 3) grey background in [0, 1]."""
    if background.kind == "flat":
        grey = np.full((size, size), background.level)
    else:
        from skimage.transform import resize

        texture = _texture(background.kind)
        h, w = texture.shape
        y0, x0, side = int(background.y0 * h), int(background.x0 * w), int(background.side * min(h, w))
        crop = resize(texture[y0:y0 + side, x0:x0 + side], (size, size), anti_aliasing=True)
        lo, hi = GREY_RANGE
        grey = lo + (hi - lo) * crop
    return np.repeat(grey[..., None], 3, axis=2)


@dataclass
class Rendering:
    image: np.ndarray  # (size, size, 3) float in [0, 1]
    amodal: list[np.ndarray]  # per sprite, (size, size) bool
    visible: list[np.ndarray]  # per sprite, (size, size) bool: amodal minus everything painted over it
    label_map: np.ndarray  # (size, size) int: index of the front sprite at each pixel, -1 background


def render(sprites: list[Sprite], background: Background, size: int) -> Rendering:
    """Paint the background, then each sprite in increasing z; later sprites overwrite earlier ones."""
    image = background_image(background, size)
    label_map = np.full((size, size), -1, dtype=np.int64)
    amodal = [amodal_mask(s, size) for s in sprites]
    for k in sorted(range(len(sprites)), key=lambda k: sprites[k].z):
        colour = np.asarray(COLOURS[sprites[k].colour])
        shade = texture_shade(sprites[k], size)
        image[amodal[k]] = colour * shade[amodal[k]][:, None]
        label_map[amodal[k]] = k
    visible = [label_map == k for k in range(len(sprites))]
    return Rendering(image, amodal, visible, label_map)
