"""OVIE's geometry (spec §2.2): lift a depth map to points, splat them into a new camera, sample poses.

- `splat`: forward-warp with a z-buffer (scatter-min of depth, contributions within a relative
  tolerance of the nearest), weights 1/z (times a Gaussian footprint for radius > 0), back-face
  culling by camera-space normals, and the visibility mask (accumulated weight > 0).
- `sample_pose`: the router over the cone sampler (a camera on a cone around the axis from the
  inverse-distance-weighted centroid back to the source camera, looking at the jittered centroid)
  and a dolly/lateral sampler, with weights in the config. Both turn about, and keep level, the
  scene's vertical: the source camera's up (the spec's fixed world-up), or with `pitch_deg` the up
  of a world in which the source camera looks down by a sampled pitch, so the target camera rolls
  the horizon in the source frame as an orbiting camera that looks down does.
- `plucker`: the target camera's rays (d, o x d) in the source frame, the network's pose input.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from proceedings.ovie.camera import look_at, pixel_rays

DEPTH_TOLERANCE = 1e-4  # spec §2.2: keep contributions within this relative depth of the per-pixel minimum
SKY_DEPTH_M = 1000.0  # pixels without depth (sky) are lifted this far: for poses moving metres, a rotation only


def unproject(depth: torch.Tensor, K: np.ndarray) -> torch.Tensor:
    """(B, H, W) z-depth -> (B, H, W, 3) points in the camera frame."""
    rays = torch.as_tensor(pixel_rays(depth.shape[-2], K, depth.shape[-1]), dtype=depth.dtype)
    return depth[..., None] * rays


def lift_with_sky(depth: torch.Tensor, valid: torch.Tensor, K: np.ndarray, sky_depth: float = SKY_DEPTH_M) -> torch.Tensor:
    """(B, H, W) z-depth and validity -> (B, H, W, 3) points of *every* pixel: a pixel without depth (the
    estimator's sky) is a point `sky_depth` away, effectively at infinity, so any sampled pose moves it by
    the rotation alone and the splat carries the sky's colour to where the new camera sees it."""
    return unproject(torch.where(valid, depth, torch.full_like(depth, sky_depth)), K)


def normals_from_points(points: torch.Tensor) -> torch.Tensor:
    """(B, H, W, 3) unit normals by finite differences of the point map, turned to face the camera."""
    dx = torch.cat([points[:, :, 1:] - points[:, :, :-1], points[:, :, -1:] - points[:, :, -2:-1]], dim=2)
    dy = torch.cat([points[:, 1:] - points[:, :-1], points[:, -1:] - points[:, -2:-1]], dim=1)
    n = torch.nn.functional.normalize(torch.cross(dx, dy, dim=-1), dim=-1)
    return torch.where((n * points).sum(-1, keepdim=True) > 0, -n, n)


def splat(rgb: torch.Tensor, points: torch.Tensor, valid: torch.Tensor, K: np.ndarray, T: torch.Tensor,
          radius: int = 0, normals: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Forward-warp `rgb (B,3,H,W)` whose source-frame `points (B,H,W,3)` are `valid (B,H,W)` into the
    cameras `T (B,4,4)` (source -> target). Returns the warped image and its visibility mask (B,H,W)."""
    B, _, H, W = rgb.shape
    R, t = T[:, :3, :3].to(points.dtype), T[:, :3, 3].to(points.dtype)
    p = torch.einsum("bij,bhwj->bhwi", R, points) + t[:, None, None]  # (B, H, W, 3) target frame
    keep = valid & (p[..., 2] > 1e-6)
    if normals is not None:  # back-face culling: the normal must face the target camera
        n = torch.einsum("bij,bhwj->bhwi", R, normals)
        keep &= (n * p).sum(-1) < 0
    z = p[..., 2].clamp_min(1e-6)
    u = K[0, 0] * p[..., 0] / z + K[0, 2]
    v = K[1, 1] * p[..., 1] / z + K[1, 2]
    batch = torch.arange(B).view(B, 1, 1).expand(B, H, W)
    colours = rgb.permute(0, 2, 3, 1)
    taps = [(0, 0)] if radius == 0 else [(dx, dy) for dy in range(-radius, radius + 1) for dx in range(-radius, radius + 1)]
    entries = []
    for dx, dy in taps:
        px, py = torch.floor(u).long() + dx, torch.floor(v).long() + dy
        inside = keep & (px >= 0) & (px < W) & (py >= 0) & (py < H)
        weight = 1.0 / z
        if radius:
            sigma = 0.5 * radius  # spec §2.2: sigma = 0.5 * splat size
            d2 = (px + 0.5 - u) ** 2 + (py + 0.5 - v) ** 2
            weight = weight * torch.exp(-d2 / (2 * sigma ** 2))
        index = (batch * H + py.clamp(0, H - 1)) * W + px.clamp(0, W - 1)
        entries.append((index[inside], z[inside], weight[inside], colours[inside]))
    index, depth, weight, colour = (torch.cat(parts) for parts in zip(*entries))
    nearest = torch.full((B * H * W,), float("inf"), dtype=z.dtype).scatter_reduce(0, index, depth, "amin")
    front = depth <= nearest[index] * (1 + DEPTH_TOLERANCE)
    weight = weight * front
    total = torch.zeros(B * H * W, dtype=z.dtype).index_add(0, index, weight)
    summed = torch.zeros(B * H * W, 3, dtype=z.dtype).index_add(0, index, weight[:, None] * colour.to(z.dtype))
    visible = total > 0
    out = torch.where(visible[:, None], summed / total.clamp_min(1e-12)[:, None], torch.zeros_like(summed))
    return out.view(B, H, W, 3).permute(0, 3, 1, 2).to(rgb.dtype), visible.view(B, H, W)


@dataclass(frozen=True)
class PoseSampler:
    """The training pose router (spec §2.5; weights belong in the config and the report)."""

    cone_weight: float = 0.5  # the paper's main sampler
    max_yaw_deg: float = 25.0
    max_pitch_deg: float = 8.0
    dist_range: tuple[float, float] = (0.75, 1.15)  # x the centroid distance
    look_jitter_m: float = 0.15
    dolly_range: tuple[float, float] = (-0.4, 0.6)  # the inferred translation sampler, x median depth / 4
    lateral: float = 0.25
    pitch_deg: tuple[float, float] = (0.0, 0.0)  # the source camera's pitch below the horizon, uniform; (0, 0):
    # the vertical is the camera's up and no sampled pose rolls (rounds 1-15)


def scene_up(pitch_deg: float) -> np.ndarray:
    """The world's up in the frame of a camera pitched `pitch_deg` below the horizon (x right, y down, z forward)."""
    a = math.radians(pitch_deg)
    return np.array([0.0, -math.cos(a), -math.sin(a)])


def centroid(points: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Inverse-distance-weighted centroid of the valid points (H, W, 3) -> (3,)."""
    p = points[valid]
    w = 1.0 / np.linalg.norm(p, axis=1)
    return (w[:, None] * p).sum(0) / w.sum()


def sample_pose(points: np.ndarray, valid: np.ndarray, rng: np.random.Generator, sampler: PoseSampler) -> np.ndarray:
    """One T_src->tgt for a source whose camera-frame points are `points (H, W, 3)`."""
    low, high = sampler.pitch_deg
    up = scene_up(rng.uniform(low, high) if high > low else low)  # a fixed pitch draws nothing: old streams stay
    if rng.random() < sampler.cone_weight:
        c = centroid(points, valid)
        yaw, pitch = (np.radians(rng.uniform(-m, m)) for m in (sampler.max_yaw_deg, sampler.max_pitch_deg))
        axis = _rotation(up, yaw) @ _rotation(np.array([1.0, 0.0, 0.0]), pitch) @ (-c / np.linalg.norm(c))
        eye = c + np.linalg.norm(c) * rng.uniform(*sampler.dist_range) * axis
        return look_at(eye, c + rng.normal(0, sampler.look_jitter_m, 3), up)
    scale = float(np.median(points[valid][:, 2])) / 4
    eye = np.array([rng.uniform(-sampler.lateral, sampler.lateral), 0.0, rng.uniform(*sampler.dolly_range)]) * scale
    look = np.array([rng.uniform(-0.3, 0.3) * scale, 0.0, 4 * scale])
    return look_at(eye, look, up)


def _rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rodrigues: rotation by `angle` (radians) about the unit `axis`."""
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * k @ k


def plucker(T: torch.Tensor, K: np.ndarray, size: int) -> torch.Tensor:
    """(B, 4, 4) T_src->tgt -> (B, 6, H, W): the target camera's unit ray directions d and moments
    o x d, both in the source frame (o = the target camera centre)."""
    R, t = T[:, :3, :3].float(), T[:, :3, 3].float()
    Rt = R.transpose(1, 2)
    origin = -(Rt @ t[..., None])[..., 0]  # (B, 3)
    rays = torch.as_tensor(pixel_rays(size, K), dtype=torch.float32, device=T.device)  # (H, W, 3) target frame
    d = torch.nn.functional.normalize(torch.einsum("bij,hwj->bhwi", Rt, rays), dim=-1)
    m = torch.cross(origin[:, None, None].expand_as(d), d, dim=-1)
    return torch.cat([d, m], dim=-1).permute(0, 3, 1, 2)


def pose_encoding(T: torch.Tensor) -> torch.Tensor:
    """(B, 4, 4) -> (B, 12): the relative [R | t], the reduced model's camera token (spec §2.5)."""
    return torch.cat([T[:, :3, :3].reshape(-1, 9), T[:, :3, 3]], dim=1).float()
