"""Procedural worlds with exact depth (issue 29): A rooms, B outdoor orbits, C in-the-wild pool.

- **A** ("RealEstate10K-like"): textured rooms with 3-6 objects; eye-height camera; the second view is
  a forward/backward dolly (-0.4..0.6 m), a lateral step (±0.25 m) and a look-at shift (spec §5).
- **B** ("DL3DV-like"): a textured ground disc, sky and objects; an elevated camera orbiting the
  scene centre, the second view 5-20° of azimuth away with height jitter.
- **C**: single images only, rooms or outdoor scenes with random palettes and skimage textures on
  every surface and freer camera angles: the diverse "in-the-wild" pool.

Every view is a `raycaster.View` with exact z-depth and normals; a pair also has T_src->tgt.
"""

from __future__ import annotations

import hashlib
import math
import json
from dataclasses import asdict, dataclass

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.core.models import cache_root
from proceedings.core.progress import progress_bar
from proceedings.ovie.camera import intrinsics, look_at, relative
from proceedings.ovie.raycaster import Material, Scene, render

WORLDS = ("A", "B", "C")
UP = np.array([0.0, 1.0, 0.0])
TEXTURES = ("brick", "grass", "gravel")


def _colour(rng: np.random.Generator, lo: float = 0.15, hi: float = 0.95) -> tuple[float, float, float]:
    return tuple(float(c) for c in rng.uniform(lo, hi, 3))


def _material(rng: np.random.Generator, wild: bool, scale: tuple[float, float] = (0.6, 1.5)) -> Material:
    """A random surface; the C pool (`wild`) draws skimage textures and saturated palettes more often."""
    pattern = rng.choice(("flat", "checker", "stripes", "texture"), p=(0.1, 0.3, 0.2, 0.4) if wild else (0.25, 0.35, 0.2, 0.2))
    lo = 0.0 if wild else 0.2
    return Material(_colour(rng, lo), str(pattern), _colour(rng, lo), float(rng.uniform(*scale)), str(rng.choice(TEXTURES)))


def _objects(rng: np.random.Generator, scene: Scene, count: int, region: tuple[float, float, float, float],
             size: tuple[float, float], wild: bool) -> None:
    """`count` boxes and spheres standing on y = 0 inside region (x0, x1, z0, z1)."""
    for _ in range(count):
        scene.materials.append(_material(rng, wild, (0.3, 0.8)))
        mat = len(scene.materials) - 1
        x, z = rng.uniform(region[0], region[1]), rng.uniform(region[2], region[3])
        s = rng.uniform(*size)
        if rng.random() < 0.5:
            half = np.array([s / 2, s * rng.uniform(0.5, 1.5) / 2, s * rng.uniform(0.6, 1.4) / 2])
            centre = np.array([x, half[1], z])
            scene.boxes.append((centre - half, centre + half, mat))
        else:
            scene.spheres.append((np.array([x, s / 2, z]), s / 2, mat))


def room_scene(rng: np.random.Generator, wild: bool = False) -> tuple[Scene, dict]:
    """A room (x across, z along, y up) with objects ahead of the camera zone; returns the scene and its extent."""
    width, depth, height = rng.uniform(4, 6), rng.uniform(5, 8), rng.uniform(2.6, 3.0)
    lo, hi = np.array([-width / 2, 0, -depth / 2]), np.array([width / 2, height, depth / 2])
    scene = Scene(materials=[_material(rng, wild) for _ in range(3)])
    faces = (1, 1, 0, 2, 1, 1)  # -x, +x walls; floor, ceiling; -z, +z walls (axis*2 + facing +)
    scene.room = (lo, hi, faces)
    scene.materials[2] = Material(_colour(rng, 0.7, 0.95))  # a plain light ceiling
    _objects(rng, scene, int(rng.integers(3, 7)), (-width / 2 + 0.6, width / 2 - 0.6, -depth / 2 + 2.2, depth / 2 - 0.6),
             (0.3, 1.0), wild)
    return scene, {"width": width, "depth": depth, "height": height}


def outdoor_scene(rng: np.random.Generator, wild: bool = False) -> Scene:
    """Ground disc of radius 40 m, sky, 4-8 objects within 3.5 m of the origin."""
    scene = Scene(materials=[_material(rng, wild, (1.0, 2.5))])
    scene.ground = (40.0, 0)
    if wild:
        scene.sky = (_colour(rng, 0.5, 1.0), _colour(rng, 0.2, 0.9))
    _objects(rng, scene, int(rng.integers(4, 9)), (-3.5, 3.5, -3.5, 3.5), (0.4, 1.5), wild)
    return scene


def room_cameras(rng: np.random.Generator, extent: dict, pair: bool) -> list[np.ndarray]:
    """A source camera in the near half looking into the room; for a pair, a dolly/lateral/look-at move."""
    x = rng.uniform(-extent["width"] / 2 + 0.8, extent["width"] / 2 - 0.8)
    z = -extent["depth"] / 2 + rng.uniform(0.8, 1.6)
    eye = np.array([x, rng.uniform(1.4, 1.7), z])
    target = np.array([rng.uniform(-1.0, 1.0), rng.uniform(0.7, 1.2), extent["depth"] / 2 - 0.5])
    cams = [look_at(eye, target, UP)]
    if pair:
        forward = (target - eye) * np.array([1, 0, 1])
        forward /= np.linalg.norm(forward)
        lateral = np.cross(forward, UP)
        eye2 = eye + rng.uniform(-0.4, 0.6) * forward + rng.uniform(-0.25, 0.25) * lateral
        cams.append(look_at(eye2, target + rng.uniform(-0.3, 0.3) * lateral, UP))
    return cams


def orbit_cameras(rng: np.random.Generator, pair: bool, wild: bool = False) -> list[np.ndarray]:
    """An elevated camera on a circle around the scene centre; the pair's second view 5-20° away."""
    radius, height, azimuth = rng.uniform(6, 9), rng.uniform(2.0, 4.0), rng.uniform(0, 2 * np.pi)
    centre = np.array([rng.normal(0, 0.3), rng.uniform(0.3, 0.8) if not wild else rng.uniform(0, 2), rng.normal(0, 0.3)])

    def cam(az: float, h: float) -> np.ndarray:
        return look_at(np.array([radius * np.cos(az), h, radius * np.sin(az)]), centre, UP)

    cams = [cam(azimuth, height)]
    if pair:
        cams.append(cam(azimuth + rng.choice((-1, 1)) * np.radians(rng.uniform(5, 20)), height + rng.uniform(-0.3, 0.3)))
    return cams


def sample_scene(world: str, rng: np.random.Generator, pair: bool) -> tuple[Scene, list[np.ndarray]]:
    """One scene of `world` and its camera(s) (one for a single image, two for a pair)."""
    if world == "A":
        scene, extent = room_scene(rng)
        return scene, room_cameras(rng, extent, pair)
    if world == "B":
        return outdoor_scene(rng), orbit_cameras(rng, pair)
    if world == "C":
        if pair:
            raise ProceedingsError("world C is a pool of single images; it has no pairs")
        if rng.random() < 0.5:
            scene, extent = room_scene(rng, wild=True)
            return scene, room_cameras(rng, extent, False)
        return outdoor_scene(rng, wild=True), orbit_cameras(rng, False, wild=True)
    raise ProceedingsError(f"unknown world '{world}'; choose one of: {', '.join(WORLDS)}")


@dataclass(frozen=True)
class RenderSpec:
    """What to render: `count` single images (pairs=False) or pairs of `world` at `size` px, from `seed`."""

    world: str
    count: int
    size: int
    seed: int
    pairs: bool = False

    def key(self) -> str:
        return hashlib.sha256(json.dumps([asdict(self), RENDER_VERSION]).encode()).hexdigest()[:16]


RENDER_VERSION = 1  # bump when the worlds change, so cached renders are rebuilt


def _rng(spec: RenderSpec) -> np.random.Generator:
    return np.random.default_rng([spec.seed, WORLDS.index(spec.world) if spec.world in WORLDS else 99])


def camera_pitches(spec: RenderSpec) -> np.ndarray:
    """(N,) degrees below the horizon of the source cameras `render_set(spec)` renders (the scene generator
    replayed, nothing rendered): the statistics a pose sampler's pitch law may be chosen from."""
    rng = _rng(spec)
    return np.array([math.degrees(math.asin(-sample_scene(spec.world, rng, spec.pairs)[1][0][2, 1]))
                     for _ in range(spec.count)])


def render_set(spec: RenderSpec, cache: bool = True) -> dict[str, np.ndarray]:
    """Arrays `rgb (N,3,H,W)`, `depth (N,H,W)`, `valid`, `normal (N,3,H,W)` for sources, the same with a
    `tgt_` prefix for pairs, and `T (N,4,4)` = T_src->tgt; cached under $PROCEEDINGS_CACHE/ovie/renders."""
    if spec.count < 1 or spec.size < 8:
        raise ProceedingsError(f"a render set needs count >= 1 and size >= 8 px, got {spec.count} and {spec.size}")
    path = cache_root() / "ovie" / "renders" / f"{spec.world}-{spec.key()}.npz"
    if cache and path.exists():
        with np.load(path) as data:
            return dict(data)
    rng, K = _rng(spec), intrinsics(spec.size)
    rows: dict[str, list] = {}
    kind = "pairs" if spec.pairs else "singles"
    for _ in progress_bar(range(spec.count), desc=f"render {spec.world} {kind}"):
        scene, cams = sample_scene(spec.world, rng, spec.pairs)
        for prefix, cam in zip(("", "tgt_"), cams):
            view = render(scene, cam, K, spec.size)
            for name in ("rgb", "depth", "valid", "normal"):
                rows.setdefault(prefix + name, []).append(getattr(view, name))
        if spec.pairs:
            rows.setdefault("T", []).append(relative(cams[0], cams[1]).astype(np.float32))
    out = {name: np.stack(values) for name, values in rows.items()}
    if cache:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npz")
        np.savez_compressed(tmp, **out)
        tmp.replace(path)
    return out
