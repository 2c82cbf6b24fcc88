"""Frozen evaluators, trained or defined on ground truth only (spec §2.6, issue 30).

- Localiser: a small heatmap net queried by an agent's body colour; soft-argmax gives its centre in px.
  Control error = distance to the requested point on frames where a point was given; recovery error =
  the same on masked points, against the ground-truth continuation.
- Ego flow: Farneback flow of the generated video between consecutive frames, endpoint error against
  the ground-truth rigid flow (GT depth + poses) on static scenery and road pixels at 6-30 m whose
  rigid flow is under 3 px per frame.
- FVMD-proxy: pyramidal Lucas-Kanade tracks of a 6x6 grid -> velocity and acceleration -> magnitude-
  weighted 8-bin angle histograms over 2x2 cells -> Frechet distance between clip sets (the FVMD recipe
  with PIPs++ replaced by LK). Frames are upsampled 4x for both OpenCV trackers.
- Depth AbsRel on agent pixels.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from scipy import linalg

from proceedings.motionforcing.camera import Intrinsics, project, relative_pose
from proceedings.motionforcing.dataset import ClipSet
from proceedings.motionforcing.networks import UNet
from proceedings.motionforcing.training import TrainConfig, TrainLog, train

UPSAMPLE = 4
MIN_VISIBLE = 3  # pixels of an agent that must be visible for it to be scored
HIT_PX = 1.5  # hit-rate radius (issue 30)
EGO_DEPTHS = (6.0, 30.0)  # metres: nearer road moves tens of px per frame, farther is untextured at 32 px
EGO_MAX_FLOW = 3.0  # px: the trackable range of Farneback on these frames


class Localiser(torch.nn.Module):
    """(frames (N, 3, H, W), query colours (N, 3)) -> centres (N, 2) as (u, v) in pixels."""

    def __init__(self, width: int = 16):
        super().__init__()
        self.unet = UNet(3 + 3 + 1, 1, width)

    def forward(self, frames: torch.Tensor, colours: torch.Tensor) -> torch.Tensor:
        N, _, H, W = frames.shape
        query = colours[:, :, None, None].expand(-1, -1, H, W)
        similarity = torch.exp(-((frames - query) ** 2).sum(1, keepdim=True) / (2 * 0.15 ** 2))
        logits = self.unet(torch.cat([frames, query, similarity], 1)).flatten(1)  # (N, H*W)
        weights = torch.softmax(logits, 1).reshape(N, H, W)
        grid = torch.arange(H, dtype=frames.dtype) + 0.5
        return torch.stack([(weights.sum(1) * grid).sum(1), (weights.sum(2) * grid).sum(1)], 1)


def visible(data: ClipSet) -> np.ndarray:
    """Which (clip, agent, frame) are scorable: >= MIN_VISIBLE pixels visible. (N, A, T)"""
    A = data.present.shape[1]
    counts = np.stack([(data.ids == k + 1).sum((2, 3)) for k in range(A)], 1)
    return data.present[:, :, None] & (counts >= MIN_VISIBLE)


def train_localiser(data: ClipSet, cfg: TrainConfig, checkpoint: Path | None = None, deadline: float | None = None,
                    width: int = 16) -> tuple[Localiser, TrainLog]:
    """Fit the localiser on ground-truth frames (every visible agent of every frame), then freeze it."""
    torch.manual_seed(cfg.seed)
    net, scorable = Localiser(width), []

    def batch(step: int):
        if not scorable:  # looked up on the first batch: a finished checkpoint needs no data
            scorable.extend(np.nonzero(visible(data)))
        n, a, t = scorable
        pick = np.random.default_rng([cfg.seed, step, 7]).choice(len(n), cfg.batch, replace=False)
        frames = torch.from_numpy(data.rgb[n[pick], t[pick]])
        colours = torch.from_numpy(data.colours[n[pick], a[pick]]).float()
        return frames, colours, torch.from_numpy(data.centres[n[pick], a[pick], t[pick]]).float()

    def loss(model, b):
        frames, colours, target = b
        return (model(frames, colours) - target).norm(dim=1).mean()

    log = train(net, loss, batch, cfg, checkpoint, desc="train localiser", deadline=deadline)
    return net.requires_grad_(False), log


@torch.no_grad()
def localise(localiser: Localiser, video: np.ndarray, colours: np.ndarray, present: np.ndarray,
             chunk: int = 512) -> np.ndarray:
    """Centres of every present agent in every frame (NaN for absent slots).
    video (N, T, 3, H, W), colours (N, A, 3), present (N, A) -> (N, A, T, 2)"""
    N, T = video.shape[:2]
    n, a = np.nonzero(present)
    frames = video[n].reshape(len(n) * T, *video.shape[2:])  # (agents * T, 3, H, W)
    queries = np.repeat(colours[n, a], T, 0)
    found = [localiser(torch.from_numpy(frames[i:i + chunk]).float(), torch.from_numpy(queries[i:i + chunk]).float())
             for i in range(0, len(frames), chunk)]
    out = np.full((N, colours.shape[1], T, 2), np.nan)
    if len(n):
        out[n, a] = torch.cat(found).numpy().reshape(len(n), T, 2)
    return out


def placement_errors(found: np.ndarray, data: ClipSet, scored: np.ndarray) -> np.ndarray:
    """Pixel error per (clip, agent, frame), NaN where not scored. found (N, A, T, 2), scored (N, A, T)"""
    error = np.linalg.norm(found - data.centres, axis=-1)
    return np.where(scored, error, np.nan)


def _upsampled_gray(frame: np.ndarray) -> np.ndarray:
    import cv2

    gray = (np.clip(frame.transpose(1, 2, 0), 0, 1) @ np.array([0.299, 0.587, 0.114]) * 255).astype(np.float32)
    size = frame.shape[-1] * UPSAMPLE
    return cv2.resize(gray, (size, size), interpolation=cv2.INTER_CUBIC).clip(0, 255).astype(np.uint8)


def rigid_flow(depth: np.ndarray, source: np.ndarray, target: np.ndarray, K: Intrinsics) -> np.ndarray:
    """Ground-truth flow (H, W, 2) of static points from the source to the target camera."""
    H, W = depth.shape
    rows, cols = np.mgrid[0:H, 0:W]
    points = np.stack([(cols + 0.5 - K.cx) / K.f * depth, -(rows + 0.5 - K.cy) / K.f * depth, depth], -1)
    R, shift = relative_pose(source, target)
    uv, _ = project(points @ R.T + shift, K)
    return uv - np.stack([cols + 0.5, rows + 0.5], -1)


def ego_epe(video: np.ndarray, data: ClipSet) -> np.ndarray:
    """Mean Farneback endpoint error per clip (N,) on static pixels at EGO_DEPTHS with rigid flow under
    EGO_MAX_FLOW that land on static pixels in view (sky and agents excluded)."""
    import cv2

    K = Intrinsics.for_size(data.size)
    out = np.full(len(video), np.nan)
    for i in range(len(video)):
        errors = []
        for t in range(1, data.frames):
            depth, static = data.depth[i, t - 1], data.ids[i, t - 1] == 0
            gt = rigid_flow(depth, data.cams[i, t - 1], data.cams[i, t], K)
            flow = cv2.calcOpticalFlowFarneback(_upsampled_gray(video[i, t - 1]), _upsampled_gray(video[i, t]), None,
                                                0.5, 3, 15, 3, 5, 1.2, 0)
            flow = cv2.resize(flow, (data.size, data.size), interpolation=cv2.INTER_AREA) / UPSAMPLE
            landing = np.floor(np.stack(np.mgrid[0:data.size, 0:data.size][::-1], -1) + 0.5 + gt).astype(int)
            inside = ((landing >= 0) & (landing < data.size)).all(-1)
            land_static = np.zeros_like(inside)
            land_static[inside] = data.ids[i, t][landing[inside][:, 1], landing[inside][:, 0]] == 0
            keep = (static & (depth >= EGO_DEPTHS[0]) & (depth <= EGO_DEPTHS[1]) & inside & land_static
                    & (np.linalg.norm(gt, axis=-1) < EGO_MAX_FLOW))
            if keep.any():
                errors.append(np.linalg.norm(flow - gt, axis=-1)[keep])
        if errors:
            out[i] = np.concatenate(errors).mean()
    return out


def motion_features(video: np.ndarray, grid: int = 6, bins: int = 8) -> np.ndarray:
    """FVMD-proxy features per clip (N, 2 * 4 * bins): LK tracks -> velocity/acceleration histograms."""
    import cv2

    N, T = video.shape[:2]
    size = video.shape[-1] * UPSAMPLE
    ticks = (np.arange(grid) + 0.5) * size / grid
    start = np.stack(np.meshgrid(ticks, ticks), -1).reshape(-1, 1, 2).astype(np.float32)
    cell = (np.arange(grid) * 2 // grid)  # 2x2 spatial cells over the grid
    cells = (cell[:, None] * 2 + cell[None, :]).reshape(-1)  # row-major like `start`
    feats = np.zeros((N, 2, 4, bins))
    for i in range(N):
        frames = [_upsampled_gray(f) for f in video[i]]
        tracks, points = [start[:, 0]], start
        for t in range(1, T):
            points, _, _ = cv2.calcOpticalFlowPyrLK(frames[t - 1], frames[t], points, None, winSize=(15, 15), maxLevel=2)
            tracks.append(points[:, 0])
        tracks = np.stack(tracks, 1) / UPSAMPLE  # (P, T, 2)
        velocity = np.diff(tracks, axis=1)
        for j, field in enumerate((velocity, np.diff(velocity, axis=1))):
            magnitude = np.linalg.norm(field, axis=-1)
            angle = np.floor((np.arctan2(field[..., 1], field[..., 0]) + np.pi) / (2 * np.pi) * bins).astype(int) % bins
            for p in range(len(tracks)):
                np.add.at(feats[i, j, cells[p]], angle[p], magnitude[p])
    return feats.reshape(N, -1)


def frechet(a: np.ndarray, b: np.ndarray) -> float:
    """Frechet distance between Gaussians fitted to feature sets a (N, D) and b (M, D)."""
    mu_a, mu_b = a.mean(0), b.mean(0)
    eps = 1e-6 * np.eye(a.shape[1])
    cov_a, cov_b = np.cov(a, rowvar=False) + eps, np.cov(b, rowvar=False) + eps
    root = linalg.sqrtm(cov_a @ cov_b)
    return float(((mu_a - mu_b) ** 2).sum() + np.trace(cov_a + cov_b - 2 * np.real(root)))


def depth_abs_rel(depth: np.ndarray, data: ClipSet) -> float:
    """Mean |d - d_gt| / d_gt on agent pixels of frames 1..T-1. depth (N, T, H, W) in metres."""
    agent = data.ids[:, 1:] > 0
    gt = data.depth[:, 1:]
    return float((np.abs(depth[:, 1:] - gt) / gt)[agent].mean()) if agent.any() else float("nan")

