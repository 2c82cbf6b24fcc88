"""The ego camera of the drive world: a level pinhole at 1.2 m, 70 degree FOV (spec §2.5).

World axes: x right, y up, z forward (the road runs along z). A camera pose is (x, z, yaw) on the
ground; yaw turns the forward axis from +z towards +x. Pixel (row i, column j) has its centre at
u = j + 0.5, v = i + 0.5, so projected coordinates are continuous pixel positions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CAMERA_HEIGHT = 1.2  # metres, spec §2.5
FOV_DEG = 70.0  # horizontal field of view, spec §2.5
FAR = 80.0  # metres: the depth stored for sky pixels and the log-depth normaliser


@dataclass(frozen=True)
class Intrinsics:
    f: float
    cx: float
    cy: float
    size: int

    @classmethod
    def for_size(cls, size: int) -> "Intrinsics":
        return cls(f=(size / 2) / np.tan(np.radians(FOV_DEG / 2)), cx=size / 2, cy=size / 2, size=size)


def rotation(yaw: float | np.ndarray) -> np.ndarray:
    """Camera-to-world rotation about y: columns are the camera's right, up and forward axes. (..., 3, 3)"""
    c, s = np.cos(yaw), np.sin(yaw)
    zero, one = np.zeros_like(c), np.ones_like(c)
    return np.stack([np.stack([c, zero, s], -1), np.stack([zero, one, zero], -1),
                     np.stack([-s, zero, c], -1)], -2)


def world_to_camera(points: np.ndarray, pose: np.ndarray) -> np.ndarray:
    """(..., 3) world points into the camera at pose (..., 3) = (x, z, yaw), broadcasting over `...`."""
    pose = np.asarray(pose, dtype=float)
    origin = np.stack([pose[..., 0], np.full(pose.shape[:-1], CAMERA_HEIGHT), pose[..., 1]], -1)
    return np.einsum("...i,...ij->...j", points - origin, rotation(pose[..., 2]))  # R^T (p - o)


def project(points_cam: np.ndarray, K: Intrinsics) -> tuple[np.ndarray, np.ndarray]:
    """Camera points (..., 3) -> pixel positions (..., 2) as (u, v) and z-depths (...)."""
    z = points_cam[..., 2]
    safe = np.where(np.abs(z) < 1e-9, 1e-9, z)
    u = K.cx + K.f * points_cam[..., 0] / safe
    v = K.cy - K.f * points_cam[..., 1] / safe
    return np.stack([u, v], -1), z


def pixel_rays(K: Intrinsics, supersample: int = 1) -> np.ndarray:
    """Camera-frame ray directions with z = 1 (so the ray parameter is the z-depth). (S*H, S*W, 3)"""
    n = K.size * supersample
    centres = (np.arange(n) + 0.5) / supersample
    u, v = np.meshgrid(centres, centres)  # (rows, cols): v varies down, u across
    return np.stack([(u - K.cx) / K.f, -(v - K.cy) / K.f, np.ones_like(u)], -1)


def relative_pose(source: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(R, t) taking source-camera points into the target camera: p_t = R p_s + t.

    Built from the yaw and position differences, so equal poses give exactly R = I and t = 0
    (the stationary-ego warp is then exact, spec §8 check 1).
    """
    dyaw = source[2] - target[2]
    R = rotation(dyaw)
    offset = np.array([source[0] - target[0], 0.0, source[1] - target[1]])
    t = offset @ rotation(target[2])
    return R, t
