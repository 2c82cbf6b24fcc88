"""Oriented boxes: fitting one to a component's points, their signed separation, and their overlap.

Every metric of the comparison is computed on a box fitted to each generated component (issue 27), so
surface noise cannot saturate them. The fit: principal axes of the points, refined by turning about
each axis to the smallest-volume box (a coarse rotating-calipers search), unless the world-aligned box
is nearly as small. Separation and penetration
come from the separating-axis theorem on the 15 candidate axes of two boxes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from proceedings.core.errors import ProceedingsError

_TURNS = np.deg2rad(np.arange(0, 90, 7.5))
WORLD_AXES_PREFERENCE = 0.8  # keep the world-aligned box unless a turned one is 20 % smaller: sparse points
                             # otherwise tilt the fit of a box that is not tilted at all


@dataclass
class Box:
    center: np.ndarray  # (3,)
    half: np.ndarray  # (3,)
    rotation: np.ndarray  # (3, 3), columns = axes

    @property
    def volume(self) -> float:
        return float(8 * np.prod(self.half))


def _extent_box(points: np.ndarray, axes: np.ndarray) -> Box:
    local = points @ axes
    lo, hi = local.min(0), local.max(0)
    return Box(((lo + hi) / 2) @ axes.T, (hi - lo) / 2, axes)


def _turn(axes: np.ndarray, k: int, angle: float) -> np.ndarray:
    """The axes turned by `angle` about axis k."""
    i, j = [a for a in range(3) if a != k]
    c, s = np.cos(angle), np.sin(angle)
    out = axes.copy()
    out[:, i], out[:, j] = c * axes[:, i] + s * axes[:, j], -s * axes[:, i] + c * axes[:, j]
    return out


def fit_box(points: np.ndarray, name: str = "component") -> Box:
    """The smallest-volume box found about the principal axes of `points` (M, 3)."""
    points = np.asarray(points, float)
    if len(points) < 3 or np.ptp(points, axis=0).max() == 0:
        raise ProceedingsError(f"{name} has {len(points)} points, all identical or fewer than 3: no box fits it")
    world = _extent_box(points, np.eye(3))
    _, _, vt = np.linalg.svd(points - points.mean(0), full_matrices=False)
    axes = vt.T
    best = _extent_box(points, axes)
    for k in range(3):
        for angle in _TURNS[1:]:
            box = _extent_box(points, _turn(axes, k, angle))
            if box.volume < best.volume - 1e-12:
                best = box
    return best if best.volume < WORLD_AXES_PREFERENCE * world.volume else world


def separation(a: Box, b: Box) -> float:
    """Signed distance along the best separating axis: > 0 a gap, < 0 the smallest penetration depth."""
    axes = [a.rotation[:, i] for i in range(3)] + [b.rotation[:, i] for i in range(3)]
    for i in range(3):
        for j in range(3):
            cross = np.cross(a.rotation[:, i], b.rotation[:, j])
            norm = np.linalg.norm(cross)
            if norm > 1e-9:
                axes.append(cross / norm)
    offset = b.center - a.center
    best = -np.inf
    for axis in axes:
        ra = np.abs(a.rotation.T @ axis) @ a.half
        rb = np.abs(b.rotation.T @ axis) @ b.half
        best = max(best, abs(offset @ axis) - ra - rb)
    return float(best)


def _grid(per_axis: int) -> np.ndarray:
    u = (np.arange(per_axis) + 0.5) / per_axis * 2 - 1
    return np.stack(np.meshgrid(u, u, u, indexing="ij"), -1).reshape(-1, 3)  # (per_axis^3, 3) in [-1, 1]^3


def _stack(boxes: list[Box]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (np.stack([b.center for b in boxes]), np.stack([b.half for b in boxes]),
            np.stack([b.rotation for b in boxes]))


def _inside_fraction(a: list[Box], b: list[Box], grid: np.ndarray) -> np.ndarray:
    """(Na, Nb): the share of a grid filling each box of `a` that lies inside each box of `b`."""
    ca, ha, ra = _stack(a)
    cb, hb, rb = _stack(b)
    points = ca[:, None] + np.einsum("gk,ak,ajk->agj", grid, ha, ra)  # (Na, G, 3) world points
    local = np.einsum("abgj,bjk->abgk", points[:, None] - cb[None, :, None], rb)  # (Na, Nb, G, 3) in b's frame
    return np.all(np.abs(local) <= hb[None, :, None] + 1e-12, axis=-1).mean(-1)


def iou_matrix(a: list[Box], b: list[Box], per_axis: int = 6) -> np.ndarray:
    """(Na, Nb) volume IoU of every pair, the intersection estimated on grids inside both boxes."""
    grid = _grid(per_axis)
    va = np.array([x.volume for x in a])
    vb = np.array([x.volume for x in b])
    inter = (_inside_fraction(a, b, grid) * va[:, None] + _inside_fraction(b, a, grid).T * vb[None, :]) / 2
    union = va[:, None] + vb[None, :] - inter
    return np.where(union > 0, inter / np.maximum(union, 1e-300), 0.0)
