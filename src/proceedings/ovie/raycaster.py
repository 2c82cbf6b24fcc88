"""A numpy ray-caster with exact z-depth and normals: rooms, ground planes, boxes, spheres, sky.

Spec §4: an analytic ray-caster stands in for the paper's 30M photos, because its depth, normals and
poses are exact. Shading is Lambertian under one directional light plus ambient, so a surface point
has the same colour from every view (the premise of warping). Colour is supersampled 2x2 per pixel
(anti-aliasing, the role of mipmaps); depth, normals and validity come from the pixel-centre ray.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from proceedings.ovie.camera import invert, pixel_rays

EPS = 1e-6


@dataclass
class Material:
    colour: tuple[float, float, float]
    pattern: str = "flat"  # flat | checker | stripes | texture
    colour2: tuple[float, float, float] = (0.0, 0.0, 0.0)
    scale: float = 1.0  # pattern period in metres
    texture: str = "brick"  # skimage.data texture for pattern "texture": brick, grass, gravel


@dataclass
class Scene:
    """Primitives, each with material indices; `room` is an axis-aligned box seen from inside."""

    materials: list[Material]
    room: tuple[np.ndarray, np.ndarray, tuple[int, ...]] | None = None  # lo, hi, six face materials
    ground: tuple[float, int] | None = None  # radius, material (the plane y = 0)
    boxes: list[tuple[np.ndarray, np.ndarray, int]] = field(default_factory=list)
    spheres: list[tuple[np.ndarray, float, int]] = field(default_factory=list)
    light: np.ndarray = field(default_factory=lambda: np.array([0.35, 1.0, 0.25]) / np.linalg.norm([0.35, 1.0, 0.25]))
    sky: tuple[tuple[float, float, float], tuple[float, float, float]] = ((0.85, 0.9, 0.95), (0.35, 0.55, 0.85))


@dataclass
class Hits:
    t: np.ndarray  # (N,) ray parameter; inf = no hit (sky)
    normal: np.ndarray  # (N, 3) world-frame unit normal facing the ray
    material: np.ndarray  # (N,) material index, -1 = sky
    uv: np.ndarray  # (N, 2) surface coordinates in metres (for patterns)


def trace(scene: Scene, origin: np.ndarray, dirs: np.ndarray) -> Hits:
    """Nearest hit of each ray `origin + t * dirs` (dirs: (N, 3), not necessarily unit)."""
    n = len(dirs)
    hits = Hits(np.full(n, np.inf), np.zeros((n, 3)), np.full(n, -1), np.zeros((n, 2)))
    if scene.room is not None:
        _room(hits, origin, dirs, *scene.room)
    if scene.ground is not None:
        _ground(hits, origin, dirs, *scene.ground)
    for lo, hi, mat in scene.boxes:
        _box(hits, origin, dirs, lo, hi, mat)
    for centre, radius, mat in scene.spheres:
        _sphere(hits, origin, dirs, centre, radius, mat)
    return hits


def _take(hits: Hits, t: np.ndarray, normal: np.ndarray, material, uv: np.ndarray) -> None:
    closer = t < hits.t
    hits.t = np.where(closer, t, hits.t)
    hits.normal[closer] = normal[closer]
    hits.material[closer] = material[closer] if np.ndim(material) else material
    hits.uv[closer] = uv[closer]


def _face_uv(point: np.ndarray, axis: np.ndarray) -> np.ndarray:
    """The two world coordinates tangent to an axis-aligned face (metres)."""
    other = np.stack([(axis + 1) % 3, (axis + 2) % 3], axis=1)
    return np.take_along_axis(point, np.sort(other, axis=1), axis=1)


def _room(hits, origin, dirs, lo, hi, faces) -> None:
    with np.errstate(divide="ignore", invalid="ignore"):
        exit_t = np.where(dirs > 0, (hi - origin) / dirs, (lo - origin) / dirs)
    exit_t[~np.isfinite(exit_t)] = np.inf
    axis = np.argmin(exit_t, axis=1)
    t = exit_t[np.arange(len(dirs)), axis]
    positive = dirs[np.arange(len(dirs)), axis] > 0
    normal = np.zeros_like(dirs)
    normal[np.arange(len(dirs)), axis] = np.where(positive, -1.0, 1.0)
    material = np.asarray(faces)[axis * 2 + positive]
    _take(hits, t, normal, material, _face_uv(origin + t[:, None] * dirs, axis))


def _ground(hits, origin, dirs, radius, mat) -> None:
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(dirs[:, 1] < -EPS, -origin[1] / dirs[:, 1], np.inf)
    point = origin + np.where(np.isfinite(t), t, 0)[:, None] * dirs
    t = np.where(np.hypot(point[:, 0], point[:, 2]) <= radius, t, np.inf)
    normal = np.tile([0.0, 1.0, 0.0], (len(dirs), 1))
    _take(hits, t, normal, mat, point[:, [0, 2]])


def _box(hits, origin, dirs, lo, hi, mat) -> None:
    with np.errstate(divide="ignore", invalid="ignore"):
        t1, t2 = (lo - origin) / dirs, (hi - origin) / dirs
    near, far = np.fmin(t1, t2), np.fmax(t1, t2)
    axis = np.argmax(near, axis=1)
    t_in, t_out = near.max(axis=1), far.min(axis=1)
    t = np.where((t_out >= t_in) & (t_in > EPS), t_in, np.inf)
    normal = np.zeros_like(dirs)
    normal[np.arange(len(dirs)), axis] = -np.sign(dirs[np.arange(len(dirs)), axis])
    point = origin + np.where(np.isfinite(t), t, 0)[:, None] * dirs
    _take(hits, t, normal, mat, _face_uv(point, axis))


def _sphere(hits, origin, dirs, centre, radius, mat) -> None:
    oc = origin - centre
    a, b, c = (dirs * dirs).sum(1), 2 * (dirs @ oc), oc @ oc - radius ** 2
    disc = b * b - 4 * a * c
    t = np.where(disc >= 0, (-b - np.sqrt(np.maximum(disc, 0))) / (2 * a), np.inf)
    t = np.where(t > EPS, t, np.inf)
    point = origin + np.where(np.isfinite(t), t, 0)[:, None] * dirs
    normal = (point - centre) / radius
    uv = np.stack([np.arctan2(normal[:, 2], normal[:, 0]) * radius, point[:, 1]], axis=1)
    _take(hits, t, normal, mat, uv)


TEXELS = 16  # texels per pattern period: the texture is box-filtered down to this (a fixed mip level)


@lru_cache(maxsize=None)
def texture_image(name: str) -> np.ndarray:
    """A grayscale skimage texture (brick, grass, gravel: shipped in the scikit-image wheel), box-filtered
    to TEXELS x TEXELS and stretched to [0, 1], so one period holds no detail finer than a few pixels."""
    from skimage import data

    image = np.asarray(getattr(data, name)(), dtype=np.float64)
    h, w = (np.array(image.shape[:2]) // TEXELS) * TEXELS
    image = image[:h, :w].reshape(TEXELS, h // TEXELS, TEXELS, w // TEXELS).mean(axis=(1, 3))
    return (image - image.min()) / (np.ptp(image) + 1e-9)


def bilinear(image: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Wrap-around bilinear lookup of `image` at texel coordinates (x, y)."""
    h, w = image.shape
    x0, y0 = np.floor(x - 0.5), np.floor(y - 0.5)
    fx, fy = x - 0.5 - x0, y - 0.5 - y0
    x0, y0 = x0.astype(int) % w, y0.astype(int) % h
    x1, y1 = (x0 + 1) % w, (y0 + 1) % h
    top = image[y0, x0] * (1 - fx) + image[y0, x1] * fx
    return top * (1 - fy) + (image[y1, x0] * (1 - fx) + image[y1, x1] * fx) * fy


def albedo(material: Material, uv: np.ndarray) -> np.ndarray:
    """(N, 3) surface colour of `material` at surface coordinates `uv` (metres)."""
    c1, c2 = np.asarray(material.colour), np.asarray(material.colour2)
    s = uv / material.scale
    if material.pattern == "flat":
        mix = np.zeros(len(uv))
    elif material.pattern == "checker":
        mix = (np.floor(s[:, 0]) + np.floor(s[:, 1])) % 2
    elif material.pattern == "stripes":
        mix = 0.5 + 0.5 * np.sin(2 * np.pi * s[:, 0])
    else:
        mix = bilinear(texture_image(material.texture), s[:, 0] * TEXELS, s[:, 1] * TEXELS)
    return c1 * (1 - mix[:, None]) + c2 * mix[:, None]


def shade(scene: Scene, hits: Hits, dirs: np.ndarray) -> np.ndarray:
    """(N, 3) colour: Lambertian albedo for surfaces, a vertical gradient for the sky."""
    up = dirs[:, 1] / np.linalg.norm(dirs, axis=1)
    horizon, zenith = (np.asarray(c) for c in scene.sky)
    rgb = horizon + np.clip(up, 0, 1)[:, None] * (zenith - horizon)
    light = 0.45 + 0.55 * np.clip(hits.normal @ scene.light, 0, None)
    for index in np.unique(hits.material[hits.material >= 0]):
        sel = hits.material == index
        rgb[sel] = albedo(scene.materials[index], hits.uv[sel]) * light[sel, None]
    return np.clip(rgb, 0, 1)


@dataclass
class View:
    rgb: np.ndarray  # (3, H, W) in [0, 1]
    depth: np.ndarray  # (H, W) z-depth in metres, 0 where invalid (sky)
    valid: np.ndarray  # (H, W) bool
    normal: np.ndarray  # (3, H, W) camera-frame unit normals facing the camera


def render(scene: Scene, T_world_to_cam: np.ndarray, K: np.ndarray, size: int, supersample: int = 2) -> View:
    """Render RGB (supersampled), exact z-depth, validity and camera-frame normals."""
    cam_to_world = invert(T_world_to_cam)
    R, eye = cam_to_world[:3, :3], cam_to_world[:3, 3]
    centre_rays = pixel_rays(size, K).reshape(-1, 3)  # z = 1, so the hit's t is its z-depth
    hits = trace(scene, eye, centre_rays @ R.T)
    valid = np.isfinite(hits.t)
    rgb = np.zeros((size * size, 3))
    for dy in range(supersample):
        for dx in range(supersample):
            offset = np.array([(dx + 0.5) / supersample - 0.5, (dy + 0.5) / supersample - 0.5, 0.0])
            rays = centre_rays + offset / np.array([K[0, 0], K[1, 1], 1.0])
            dirs = rays @ R.T
            rgb += shade(scene, trace(scene, eye, dirs), dirs)
    rgb /= supersample ** 2
    normal = hits.normal @ T_world_to_cam[:3, :3].T  # world -> camera frame
    return View(rgb.T.reshape(3, size, size).astype(np.float32),
                np.where(valid, hits.t, 0).reshape(size, size).astype(np.float32), valid.reshape(size, size),
                normal.T.reshape(3, size, size).astype(np.float32))
