"""Pinhole cameras in the OpenCV convention: x right, y down, z forward; poses are 4x4 world-to-camera.

The reduced OVIE (spec §2.5) fixes the intrinsics to a 60° field of view, so a relative pose
T_src->tgt and the image size say everything about the target camera. Depth is z-depth in metres.
"""

from __future__ import annotations

import math

import numpy as np

FOV_DEG = 60.0  # spec §2.5: fixed intrinsics


def intrinsics(size: int, fov_deg: float = FOV_DEG) -> np.ndarray:
    """K for a square `size` x `size` image whose horizontal field of view is `fov_deg`."""
    f = 0.5 * size / math.tan(math.radians(fov_deg) / 2)
    return np.array([[f, 0.0, size / 2], [0.0, f, size / 2], [0.0, 0.0, 1.0]])


def pixel_rays(height: int, K: np.ndarray, width: int | None = None) -> np.ndarray:
    """Camera-frame rays through pixel centres with z = 1: (H, W, 3); depth * ray = the 3D point."""
    u, v = np.meshgrid(np.arange(width or height) + 0.5, np.arange(height) + 0.5)
    return np.stack([(u - K[0, 2]) / K[0, 0], (v - K[1, 2]) / K[1, 1], np.ones_like(u)], axis=-1)


def look_at(eye: np.ndarray, target: np.ndarray, up: np.ndarray) -> np.ndarray:
    """World-to-camera 4x4 of a camera at `eye` looking at `target`, `up` pointing up in the image."""
    forward = _unit(np.asarray(target, float) - np.asarray(eye, float))
    right = _unit(np.cross(forward, up))
    down = np.cross(forward, right)
    R = np.stack([right, down, forward])
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = R, -R @ np.asarray(eye, float)
    return T


def invert(T: np.ndarray) -> np.ndarray:
    """The inverse of a rigid 4x4 transform (or a stack of them)."""
    R, t = T[..., :3, :3], T[..., :3, 3]
    out = np.zeros_like(T)
    Rt = np.swapaxes(R, -1, -2)
    out[..., :3, :3], out[..., :3, 3], out[..., 3, 3] = Rt, -(Rt @ t[..., None])[..., 0], 1.0
    return out


def relative(T_src: np.ndarray, T_tgt: np.ndarray) -> np.ndarray:
    """T_src->tgt: maps points in the source camera frame to the target camera frame."""
    return T_tgt @ invert(T_src)


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)
