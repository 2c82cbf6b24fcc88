"""Frozen evaluators, trained or defined on ground truth only (spec §2.6, issue 30).

- Localiser: a small UNet queried by an agent's body colour segments that agent (trained on ground-truth
  instance masks); a linear readout of the mask's moments, fitted on ground truth, gives its projected
  centre in px. Scored only where the agent is whole on screen (`scorable`). Control error = distance to
  the requested point on frames where a point was given; recovery error = the same on masked points,
  against the ground-truth continuation.
- Ego flow: `ego_flow.py` (registration of the camera step, endpoint error of its rigid flow).
- FVMD-proxy: pyramidal Lucas-Kanade tracks of a 6x6 grid -> velocity and acceleration -> magnitude-
  weighted 8-bin angle histograms over 2x2 cells -> Frechet distance between clip sets (the FVMD recipe
  with PIPs++ replaced by LK). Frames are upsampled 4x for the tracker.
- Depth AbsRel on agent pixels.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from scipy import linalg

from proceedings.core.runtime import load_checkpoint, save_checkpoint
from proceedings.motionforcing.dataset import ClipSet
from proceedings.motionforcing.networks import UNet
from proceedings.motionforcing.training import TrainConfig, TrainLog, train

UPSAMPLE = 4
MIN_VISIBLE = 3  # pixels of an agent that must be visible for it to be scored
HIT_PX = 1.5  # hit-rate radius (issue 30)
FOREGROUND_LOGIT = -4.0  # the segmenter starts at ~2 % foreground (an agent's share of a frame), not 50 %


class Localiser(torch.nn.Module):
    """(frames (N, 3, H, W), query colours (N, 3)) -> centres (N, 2) as (u, v) in pixels.

    A small UNet segments the queried agent (trained on ground-truth instance masks); a linear readout
    fitted on ground truth maps the mask's moments (centroid, spread, size) to the projected box centre,
    which a visible silhouette's centroid alone misses by ~0.7 px (the window band, the roof, perspective)."""

    def __init__(self, width: int = 16):
        super().__init__()
        self.unet = UNet(3 + 3 + 1, 1, width)
        torch.nn.init.constant_(self.unet.head.bias, FOREGROUND_LOGIT)
        self.register_buffer("readout", torch.cat([torch.eye(2), torch.zeros(len(MOMENTS) - 2, 2)]))

    def logits(self, frames: torch.Tensor, colours: torch.Tensor) -> torch.Tensor:
        """Segmentation logits of the queried agent. (N, H, W)"""
        N, _, H, W = frames.shape
        query = colours[:, :, None, None].expand(-1, -1, H, W)
        similarity = torch.exp(-((frames - query) ** 2).sum(1, keepdim=True) / (2 * 0.15 ** 2))
        return self.unet(torch.cat([frames, query, similarity], 1))[:, 0]

    def forward(self, frames: torch.Tensor, colours: torch.Tensor) -> torch.Tensor:
        """Centres clamped to the image: every scored agent is whole on screen, so its true centre lies
        inside, and a readout outside (a polynomial far from the masks it was fitted on) is a miss whose
        error must stay bounded."""
        H, W = frames.shape[-2:]
        centres = mask_moments(torch.sigmoid(self.logits(frames, colours))) @ self.readout
        return torch.stack([centres[:, 0].clamp(0, W), centres[:, 1].clamp(0, H)], 1)


MOMENTS = ("u", "v", "spread_u", "spread_v", "sqrt_area", "one", "v^2", "v sqrt_area", "spread_v^2", "u v",
           "u spread_u", "v spread_v")  # the readout's features: perspective makes the centre's offset nonlinear
MASK_FLOOR = 0.1  # below this fraction of its peak a mask weighs nothing (a faint background would pull to the middle)


def mask_moments(mask: torch.Tensor) -> torch.Tensor:
    """Moments of soft masks (N, H, W) in pixels: centroid (u, v), spread (std), sqrt of the area, 1, and
    their products named in MOMENTS. (N, 12)

    Each mask is first scaled to its own peak, so a faint agent (a blurred generated frame the segmenter
    is unsure of) reads out where it is; on absolute probabilities a mask below the floor was empty, and
    an empty mask's moments (all 0 but the constant) read out at the readout's intercept, far off the image."""
    peak = mask.flatten(1).amax(1).clamp_min(1e-12)[:, None, None]
    weights = ((mask / peak - MASK_FLOOR) / (1 - MASK_FLOOR)).clamp_min(0)
    N, H, W = mask.shape
    total = weights.sum((1, 2)).clamp_min(1e-6)
    u, v = torch.arange(W, dtype=mask.dtype) + 0.5, torch.arange(H, dtype=mask.dtype) + 0.5
    along_u, along_v = weights.sum(1), weights.sum(2)  # (N, W), (N, H)
    mean_u, mean_v = (along_u * u).sum(1) / total, (along_v * v).sum(1) / total
    spread_u = ((along_u * (u - mean_u[:, None]) ** 2).sum(1) / total).sqrt()
    spread_v = ((along_v * (v - mean_v[:, None]) ** 2).sum(1) / total).sqrt()
    root = total.sqrt()
    return torch.stack([mean_u, mean_v, spread_u, spread_v, root, torch.ones_like(total), mean_v ** 2, mean_v * root,
                        spread_v ** 2, mean_u * mean_v, mean_u * spread_u, mean_v * spread_v], 1)


def visible(data: ClipSet) -> np.ndarray:
    """Which (clip, agent, frame) the localiser can see: >= MIN_VISIBLE pixels. (N, A, T)"""
    A = data.present.shape[1]
    counts = np.stack([(data.ids == k + 1).sum((2, 3)) for k in range(A)], 1)
    return data.present[:, :, None] & (counts >= MIN_VISIBLE)


def scorable(data: ClipSet) -> np.ndarray:
    """Which (clip, agent, frame) are scored: visible, whole (not cut by the image border) and not
    occluded (no pixel of a nearer agent next to its silhouette), so that what is on screen determines
    the ground-truth centre. (N, A, T)"""
    out = visible(data)
    for k in range(data.present.shape[1]):
        mine = data.ids == k + 1  # (N, T, H, W)
        pad = np.pad(mine, [(0, 0), (0, 0), (1, 1), (1, 1)])
        rim = (pad[..., :-2, 1:-1] | pad[..., 2:, 1:-1] | pad[..., 1:-1, :-2] | pad[..., 1:-1, 2:]) & ~mine
        nearer = (data.ids > 0) & (data.depth < data.centre_depth[:, k, :, None, None])
        occluded = (rim & nearer).any((2, 3))
        border = mine[..., 0, :].any(-1) | mine[..., -1, :].any(-1) | mine[..., :, 0].any(-1) | mine[..., :, -1].any(-1)
        out[:, k] &= ~occluded & ~border
    return out


def train_localiser(data: ClipSet, cfg: TrainConfig, checkpoint: Path | None = None, deadline: float | None = None,
                    width: int = 16, readout_samples: int = 4096) -> tuple[Localiser, TrainLog]:
    """Fit the segmenter on ground-truth frames (every visible agent of every frame, binary cross-entropy
    against its instance mask), then the readout by least squares on scorable agents, then freeze it."""
    torch.manual_seed(cfg.seed)
    net, seen = Localiser(width), []

    def batch(step: int):
        if not seen:  # looked up on the first batch: a finished checkpoint needs no data
            seen.extend(np.nonzero(visible(data)))
        n, a, t = seen
        pick = np.random.default_rng([cfg.seed, step, 7]).choice(len(n), cfg.batch, replace=False)
        frames = torch.from_numpy(data.rgb[n[pick], t[pick]])
        colours = torch.from_numpy(data.colours[n[pick], a[pick]]).float()
        return frames, colours, torch.from_numpy(data.ids[n[pick], t[pick]] == a[pick, None, None] + 1).float()

    def loss(model, b):
        frames, colours, target = b
        return torch.nn.functional.binary_cross_entropy_with_logits(model.logits(frames, colours), target)

    log = train(net, loss, batch, cfg, checkpoint, desc="train localiser", deadline=deadline)
    state = load_checkpoint(checkpoint) if checkpoint else None
    if state is None or not state.get("readout_fitted"):  # a finished run folder keeps its readout: no data needed
        fit_readout(net, data, cfg.seed, readout_samples)
        if checkpoint:
            save_checkpoint(checkpoint, {**state, "model": net.state_dict(), "readout_fitted": True})
    return net.requires_grad_(False), log


@torch.no_grad()
def fit_readout(net: Localiser, data: ClipSet, seed: int, samples: int = 4096) -> None:
    """Least squares from the segmenter's mask moments to the true centres of scorable agents."""
    n, a, t = np.nonzero(scorable(data))
    pick = np.random.default_rng([seed, 8]).choice(len(n), min(samples, len(n)), replace=False)
    moments = torch.cat([mask_moments(torch.sigmoid(net.logits(
        torch.from_numpy(data.rgb[n[chunk], t[chunk]]), torch.from_numpy(data.colours[n[chunk], a[chunk]]).float())))
        for chunk in np.array_split(pick, max(1, len(pick) // 512))]).double()
    target = torch.from_numpy(data.centres[n[pick], a[pick], t[pick]])
    net.readout.copy_(torch.linalg.lstsq(moments, target).solution.float())


@torch.no_grad()
def localise(localiser: Localiser, video: np.ndarray, colours: np.ndarray, which: np.ndarray,
             chunk: int = 512) -> np.ndarray:
    """Centres of the agents `which` names (NaN elsewhere): (N, A) agents in every frame, or (N, A, T)
    agent-frames (the scored ones; the localiser is the costliest evaluator).
    video (N, T, 3, H, W), colours (N, A, 3) -> (N, A, T, 2)"""
    N, T = video.shape[:2]
    if which.ndim == 2:
        which = np.repeat(which[:, :, None], T, 2)
    n, a, t = np.nonzero(which)
    out = np.full((N, colours.shape[1], T, 2), np.nan)
    for i in range(0, len(n), chunk):
        pick = slice(i, i + chunk)
        found = localiser(torch.from_numpy(video[n[pick], t[pick]]).float(),
                          torch.from_numpy(colours[n[pick], a[pick]]).float())
        out[n[pick], a[pick], t[pick]] = found.numpy()
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

