"""Ego-flow evaluator: how well a video's static scene moves like the ground-truth ego camera (spec §2.6).

Per consecutive frame pair, the camera step (x, z, yaw) that best explains the video is found by
photometric registration: frame t-1's static pixels, lifted to 3D with the ground-truth depth, are
projected into candidate cameras and compared with frame t (a grid over forward distance and yaw,
then finer grids over all three). The rigid flow of the registered step is compared with the rigid flow of
the true step (endpoint error, px) on static pixels at EGO_DEPTHS whose true flow is under
EGO_MAX_FLOW and that land on static pixels in view (sky and agents excluded).

A free-form flow (Farneback on 4x-upsampled 32 px frames) misses by 0.6-0.8 px per pixel even on
ground truth; constraining the flow to the ego-motion family with the known depth removes that noise,
and a video that does not move its camera (copy-I0) registers to the identity step exactly.
"""

from __future__ import annotations

import numpy as np
import torch
from torch.nn import functional as F

from proceedings.motionforcing.camera import FAR, Intrinsics, project, relative_pose
from proceedings.motionforcing.dataset import ClipSet

EGO_DEPTHS = (6.0, 30.0)  # metres: nearer road moves tens of px per frame, farther is untextured at 32 px
EGO_MAX_FLOW = 3.0  # px: the scored pixels (kept from the Farneback evaluator, whose trackable range it was)
FORWARD_GRID = np.linspace(-0.5, 3.5, 21)  # metres per frame: ego speeds 3-7 m/s (+-2 m/s^2) at dt = 0.3 s
YAW_GRID = np.linspace(-0.08, 0.08, 9)  # radians per frame: yaw rates up to 0.15 rad/s
ZOOM_POINTS, ZOOM_PASSES = 5, 5  # then 5^3 grids over (x, z, yaw) around the best, each 2x finer (to ~6 mm, ~0.6 mrad)


def rigid_flow(depth: np.ndarray, source: np.ndarray, target: np.ndarray, K: Intrinsics) -> np.ndarray:
    """Ground-truth flow (H, W, 2) of static points from the source to the target camera."""
    H, W = depth.shape
    rows, cols = np.mgrid[0:H, 0:W]
    points = np.stack([(cols + 0.5 - K.cx) / K.f * depth, -(rows + 0.5 - K.cy) / K.f * depth, depth], -1)
    R, shift = relative_pose(source, target)
    uv, _ = project(points @ R.T + shift, K)
    return uv - np.stack([cols + 0.5, rows + 0.5], -1)


def _rotation(yaw: torch.Tensor) -> torch.Tensor:
    """camera.rotation for a batch of yaws, differentiable. (C, 3, 3)"""
    c, s = torch.cos(yaw), torch.sin(yaw)
    zero, one = torch.zeros_like(c), torch.ones_like(c)
    return torch.stack([torch.stack([c, zero, s], -1), torch.stack([zero, one, zero], -1),
                        torch.stack([-s, zero, c], -1)], -2)


def _project_into(points: torch.Tensor, source: torch.Tensor, targets: torch.Tensor, K: Intrinsics) -> torch.Tensor:
    """Source-camera points (P, 3) seen from candidate target poses (C, 3) -> pixels (C, P, 2)."""
    R = _rotation(source[2] - targets[:, 2])
    offset = torch.stack([source[0] - targets[:, 0], torch.zeros_like(targets[:, 0]), source[1] - targets[:, 1]], -1)
    shift = torch.einsum("ci,cij->cj", offset, _rotation(targets[:, 2]))
    p = torch.einsum("pj,cij->cpi", points, R) + shift[:, None]
    z = p[..., 2].clamp_min(1e-3)
    return torch.stack([K.cx + K.f * p[..., 0] / z, K.cy - K.f * p[..., 1] / z], -1)


def register_step(previous: np.ndarray, current: np.ndarray, depth: np.ndarray, static: np.ndarray,
                  source: np.ndarray, K: Intrinsics) -> np.ndarray:
    """The target pose (x, z, yaw) that best maps frame `previous` (3, H, W) onto `current` through the
    static pixels of the ground-truth `depth` (H, W) seen from the `source` pose: a coarse grid over
    forward distance and yaw, then zooming 3D grids (no gradients: cheap and deterministic)."""
    rows, cols = np.nonzero(static & (depth < FAR))
    d, u, v = depth[rows, cols], cols + 0.5, rows + 0.5
    points = torch.from_numpy(np.stack([(u - K.cx) / K.f * d, -(v - K.cy) / K.f * d, d], -1)).float()
    reference = torch.from_numpy(previous[:, rows, cols].T.astype(np.float32))  # (P, 3)
    frame = torch.from_numpy(current.astype(np.float32))[None]
    src = torch.from_numpy(np.asarray(source, dtype=np.float32))

    @torch.no_grad()
    def cost(targets: torch.Tensor) -> torch.Tensor:
        uv = _project_into(points, src, targets, K)
        sampled = F.grid_sample(frame, (uv / K.size * 2 - 1)[None], align_corners=False, padding_mode="border")
        inside = ((uv > 0) & (uv < K.size)).all(-1)
        residual = ((sampled[0].permute(1, 2, 0) - reference) ** 2).sum(-1)
        return (residual * inside).sum(-1) / inside.sum(-1).clamp_min(1)

    forward, turn = (torch.from_numpy(g.ravel()).float() for g in np.meshgrid(FORWARD_GRID, YAW_GRID, indexing="ij"))
    heading = src[2] + turn / 2
    candidates = torch.stack([src[0] + forward * torch.sin(heading), src[1] + forward * torch.cos(heading),
                              src[2] + turn], -1)
    span = torch.tensor([FORWARD_GRID[1] - FORWARD_GRID[0]] * 2 + [YAW_GRID[1] - YAW_GRID[0]], dtype=torch.float32)
    offsets = torch.from_numpy(np.stack(np.meshgrid(*[np.linspace(-1, 1, ZOOM_POINTS)] * 3, indexing="ij"), -1)
                               .reshape(-1, 3)).float()
    for _ in range(ZOOM_PASSES + 1):
        best = candidates[cost(candidates).argmin()]
        candidates, span = best + offsets * span, span / ((ZOOM_POINTS - 1) / 2)
    return best.numpy()


def scored_pixels(data: ClipSet, i: int, t: int, flow: np.ndarray) -> np.ndarray:
    """Static pixels of frame t-1 at EGO_DEPTHS, true flow under EGO_MAX_FLOW, landing on static pixels in view."""
    depth, size = data.depth[i, t - 1], data.size
    landing = np.floor(np.stack(np.mgrid[0:size, 0:size][::-1], -1) + 0.5 + flow).astype(int)
    inside = ((landing >= 0) & (landing < size)).all(-1)
    land_static = np.zeros_like(inside)
    land_static[inside] = data.ids[i, t][landing[inside][:, 1], landing[inside][:, 0]] == 0
    return ((data.ids[i, t - 1] == 0) & (depth >= EGO_DEPTHS[0]) & (depth <= EGO_DEPTHS[1]) & inside & land_static
            & (np.linalg.norm(flow, axis=-1) < EGO_MAX_FLOW))


def ego_epe(video: np.ndarray, data: ClipSet) -> np.ndarray:
    """Mean endpoint error (px) per clip (N,) between the registered and the true ego flow."""
    K = Intrinsics.for_size(data.size)
    out = np.full(len(video), np.nan)
    for i in range(len(video)):
        errors = []
        for t in range(1, data.frames):
            depth, source = data.depth[i, t - 1], data.cams[i, t - 1]
            truth = rigid_flow(depth, source, data.cams[i, t], K)
            keep = scored_pixels(data, i, t, truth)
            if keep.any():
                step = register_step(video[i, t - 1], video[i, t], depth, data.ids[i, t - 1] == 0, source, K)
                errors.append(np.linalg.norm(rigid_flow(depth, source, step, K) - truth, axis=-1)[keep])
        if errors:
            out[i] = np.concatenate(errors).mean()
    return out
