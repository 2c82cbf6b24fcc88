"""Training batches: OVIE's on-the-fly pseudo-pairs from single images, and true multi-view pairs.

Pseudo-pairs (spec §2.2): the frozen estimator's depth of each single image is lifted to points once
(it is frozen); every step samples a pose per image from the router and splats the source into it,
giving a pseudo-target and its visibility mask. Pixels the estimator gives no depth (sky) are lifted
far away (`geometry.lift_with_sky`), so the splat moves them by the pose's rotation and the sky of a
pseudo-target is supervised like any surface; only true disocclusions are holes. With `masked=False`
(the ablation) the holes are black targets with full weight. True pairs (the MV baseline and fine-tuning) have mask = all ones.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.ovie.depth import MIN_VALID_FRACTION
from proceedings.ovie.geometry import SKY_DEPTH_M, PoseSampler, lift_with_sky, normals_from_points, sample_pose, splat


@dataclass
class Batch:
    source: torch.Tensor  # (B, 3, H, W)
    target: torch.Tensor  # (B, 3, H, W)
    mask: torch.Tensor  # (B, H, W) bool: pixels the losses supervise
    T: torch.Tensor  # (B, 4, 4) source -> target

    def to(self, device: torch.device) -> "Batch":
        return Batch(*(t.to(device) for t in (self.source, self.target, self.mask, self.T)))


class PseudoPairs:
    """Single images + frozen-estimator depth -> pseudo-pairs under sampled poses."""

    def __init__(self, rgb: np.ndarray, depth: torch.Tensor, valid: torch.Tensor, K: np.ndarray,
                 sampler: PoseSampler, radius: int = 0, masked: bool = True, sky_depth: float = SKY_DEPTH_M):
        expected = (len(rgb), *np.shape(rgb)[-2:])
        if tuple(depth.shape) != expected or tuple(valid.shape) != expected:
            raise ProceedingsError(f"depth map shape {tuple(depth.shape)} (validity {tuple(valid.shape)}) does not match "
                                   f"the images' {expected}; give one (H, W) depth map per image")
        keep = valid.float().flatten(1).mean(1) >= MIN_VALID_FRACTION
        self.dropped = int((~keep).sum())  # samples with < 5 % valid depth (issue 29), counted
        self.rgb = torch.as_tensor(rgb)[keep]
        self.points = lift_with_sky(depth[keep].double(), valid[keep], K, sky_depth).float()  # every pixel, sky far
        self.surface = valid[keep]  # where the estimator gave depth: the pose sampler's centroid and scale
        self.normals = normals_from_points(self.points)
        self.points_np, self.surface_np = self.points.numpy(), self.surface.numpy()
        self.K, self.sampler, self.radius, self.masked = K, sampler, radius, masked

    def __len__(self) -> int:
        return len(self.rgb)

    def batch(self, rng: np.random.Generator, size: int) -> Batch:
        pick = rng.integers(len(self), size=size)
        T = torch.as_tensor(np.stack([sample_pose(self.points_np[i], self.surface_np[i], rng, self.sampler) for i in pick]),
                            dtype=torch.float32)
        return self.pseudo_pair(pick, T)

    def pseudo_pair(self, pick: np.ndarray, T: torch.Tensor) -> Batch:
        """The sources `pick` splatted into the cameras `T (B, 4, 4)`: pseudo-targets and their masks."""
        points = self.points[pick]
        target, visible = splat(self.rgb[pick], points, torch.ones(points.shape[:-1], dtype=torch.bool), self.K, T,
                                self.radius, self.normals[pick])
        mask = visible if self.masked else torch.ones_like(visible)
        return Batch(self.rgb[pick], target, mask, T)


class TruePairs:
    """Rendered multi-view pairs: the true target everywhere (mask = all ones)."""

    def __init__(self, pairs: dict[str, np.ndarray]):
        self.rgb, self.target = torch.as_tensor(pairs["rgb"]), torch.as_tensor(pairs["tgt_rgb"])
        self.T = torch.as_tensor(pairs["T"], dtype=torch.float32)
        self.dropped = 0

    def __len__(self) -> int:
        return len(self.rgb)

    def batch(self, rng: np.random.Generator, size: int) -> Batch:
        pick = torch.as_tensor(rng.integers(len(self), size=size))
        return Batch(self.rgb[pick], self.target[pick], torch.ones(size, *self.rgb.shape[-2:], dtype=torch.bool),
                     self.T[pick])
