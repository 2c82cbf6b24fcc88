"""Layouts of the two profiles (spec §4): LayoutSAM-like `sparse` and OverLay++-like `dense`.

`sparse`: n ~ 1 + Poisson(2.96) objects (mean 3.96, LayoutSAM's 10.7M entities / 2.7M images),
placed uniformly, each redrawn while its box overlaps an earlier one by IoU > 0.1.
`dense`: n ~ 2 + Poisson(4.6) objects (mean 6.6, the paper's number), 80 % of them placed beside an
existing anchor at a centre distance of 0.3-1.1 x (r_a + r_b) so that overlaps are sought; any
object left less than 15 % visible is moved again, so nobody is wholly hidden.
A scene is a pure function of (seed, index), so shards can be regenerated independently.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from proceedings.overlay.sprites import COLOUR_NAMES, SHAPES, SIZES, TEXTURES, Sprite, amodal_mask

PROFILES = ("sparse", "dense")
PLACEMENT_SIZE = 64  # the canvas at which placement tests visibility
MIN_VISIBLE = 0.15  # spec §2.2 step 6: a valid overlap keeps both objects at least this visible


@dataclass(frozen=True)
class Profile:
    name: str
    base_objects: int  # n = base + Poisson(extra)
    extra_objects: float
    anchored: float  # share of objects placed beside an anchor (seek overlaps)
    max_box_iou: float | None  # sparse: reject placements over this box IoU with any earlier object


PROFILE = {
    "sparse": Profile("sparse", 1, 2.96, 0.0, 0.1),
    "dense": Profile("dense", 2, 4.6, 0.8, None),
}


def scene_rng(seed: int, index: int, stream: int = 0) -> np.random.Generator:
    """The generator of sample `index` of a run with `seed` (independent of every other sample)."""
    return np.random.default_rng([seed, index, stream])


def box_of(sprite: Sprite) -> tuple[float, float, float, float]:
    """An approximate xyxy box in image fractions (the radius square); exact boxes come from masks."""
    return (sprite.cx - sprite.radius, sprite.cy - sprite.radius, sprite.cx + sprite.radius, sprite.cy + sprite.radius)


def box_iou(a, b) -> float:
    """IoU of two xyxy boxes."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def _attributes(rng: np.random.Generator) -> dict:
    pick = lambda options: options[int(rng.integers(len(options)))]  # noqa: E731
    size = pick(tuple(SIZES))
    return {"shape": pick(SHAPES), "colour": pick(COLOUR_NAMES), "texture": pick(TEXTURES), "size": size,
            "radius": SIZES[size],
            "rotation": float(rng.uniform(0, 2 * np.pi))}


def _centre(rng: np.random.Generator, radius: float, anchor: Sprite | None) -> tuple[float, float]:
    """Uniform inside the image, or beside `anchor` at 0.3-1.1 x the sum of radii; clipped inside."""
    if anchor is None:
        cx, cy = rng.uniform(radius, 1 - radius, size=2)
    else:
        distance = rng.uniform(0.3, 1.1) * (anchor.radius + radius)
        angle = rng.uniform(0, 2 * np.pi)
        cx, cy = anchor.cx + distance * np.cos(angle), anchor.cy + distance * np.sin(angle)
    return float(np.clip(cx, radius, 1 - radius)), float(np.clip(cy, radius, 1 - radius))


def _place(rng: np.random.Generator, profile: Profile, placed: list[Sprite], attrs: dict, z: int) -> Sprite:
    anchored = placed and rng.uniform() < profile.anchored
    for _ in range(30):
        anchor = placed[int(rng.integers(len(placed)))] if anchored else None
        cx, cy = _centre(rng, attrs["radius"], anchor)
        sprite = Sprite(attrs["shape"], attrs["colour"], attrs["texture"], attrs["size"], cx, cy,
                        attrs["radius"], attrs["rotation"], z)
        if profile.max_box_iou is None or all(box_iou(box_of(sprite), box_of(p)) <= profile.max_box_iou for p in placed):
            break
    return sprite


def visible_fractions(sprites: list[Sprite], size: int = PLACEMENT_SIZE) -> list[float]:
    """|visible| / |amodal| of every sprite when painted back to front (higher z in front)."""
    amodal = [amodal_mask(s, size) for s in sprites]
    fractions = []
    for i, s in enumerate(sprites):
        cover = np.zeros((size, size), bool)
        for j, other in enumerate(sprites):
            if other.z > s.z:
                cover |= amodal[j]
        area = amodal[i].sum()
        fractions.append(float((amodal[i] & ~cover).sum() / area) if area else 0.0)
    return fractions


def sample_scene(profile: str, seed: int, index: int) -> list[Sprite]:
    """The sprites of sample `index` of `profile` (z is a random permutation: depth order)."""
    spec = PROFILE[profile]
    rng = scene_rng(seed, index)
    n = spec.base_objects + int(rng.poisson(spec.extra_objects))
    depth = rng.permutation(n)
    sprites: list[Sprite] = []
    for k in range(n):
        sprites.append(_place(rng, spec, sprites, _attributes(rng), int(depth[k])))
    for _ in range(10):  # move whoever is hidden; the count stays n
        hidden = [k for k, f in enumerate(visible_fractions(sprites)) if f < MIN_VISIBLE]
        if not hidden:
            break
        for k in hidden:
            s = sprites[k]
            others = sprites[:k] + sprites[k + 1:]
            attrs = {"shape": s.shape, "colour": s.colour, "texture": s.texture, "size": s.size,
                     "radius": s.radius, "rotation": s.rotation}
            sprites[k] = _place(rng, spec, others, attrs, s.z)
    return sprites
