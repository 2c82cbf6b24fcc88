"""Motion Forcing's hierarchy: Point -> Shape (stage 1) -> Appearance (stage 2) (spec §2.2, §2.4).

Stage 1 reads [I0, D0] and per frame [point video, point-valid, ego warp] and writes the dynamic depth
video (log depth); loss L1 + 0.5 * L1 of image gradients (sharp object boundaries).
Stage 2 reads [I0] and per frame the depth and writes RGB; loss L1 + 0.1 * (1 - SSIM). Every L1 here
(and in B1) weights the moving agents' pixels MOVING_WEIGHT + 1 times (the prototype scored agent L1). It is trained
on a mix of ground-truth depth (noised and blurred) and the frozen stage 1's predictions, so it
tolerates stage-1 errors (spec §5: the 50/50 stage-2 mix).
"""

from __future__ import annotations

import numpy as np
import torch
from torch.nn import functional as F

from proceedings.motionforcing.dataset import Batch
from proceedings.motionforcing.image_quality import ssim
from proceedings.motionforcing.networks import VideoNet, video_net

STATIC, PER_FRAME = 4, 5  # [I0, D0]; [point video, point-valid, ego warp]
MOVING_WEIGHT = 20.0  # L1 weight of pixels an agent covers at frame t or frame 0, in every arm's loss (else
# the ~5 % of pixels that move are outweighed by the background, and every arm stays at copy-I0)


def stage1_net(frames: int, width: int, temporal: str = "channels") -> VideoNet:
    return video_net(frames, STATIC, PER_FRAME, 1, width, temporal)


def stage2_net(frames: int, width: int, temporal: str = "channels") -> VideoNet:
    return video_net(frames, 3, 1, 3, width, temporal)


def shape(net: VideoNet, b: Batch) -> torch.Tensor:
    """Stage 1: the depth video (B, T, 1, H, W), normalised log depth, residual on D0."""
    T = b.points.shape[1]
    return net(b.static, b.per_frame, b.depth0[:, None].expand(-1, T, -1, -1, -1))


def appearance(net: VideoNet, image0: torch.Tensor, depth: torch.Tensor) -> torch.Tensor:
    """Stage 2: the RGB video (B, T, 3, H, W) from I0 and a depth video, residual on I0."""
    T = depth.shape[1]
    return net(image0, depth, image0[:, None].expand(-1, T, -1, -1, -1))


def gradient_l1(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    dx = lambda x: x[..., :, 1:] - x[..., :, :-1]  # noqa: E731
    dy = lambda x: x[..., 1:, :] - x[..., :-1, :]  # noqa: E731
    return (dx(pred) - dx(target)).abs().mean() + (dy(pred) - dy(target)).abs().mean()


def weighted_l1(pred: torch.Tensor, target: torch.Tensor, moving: torch.Tensor) -> torch.Tensor:
    """L1 with the pixels of moving agents (B, T, 1, H, W) weighted MOVING_WEIGHT + 1 times the rest."""
    weight = (1 + MOVING_WEIGHT * moving).expand_as(pred)
    return ((pred - target).abs() * weight).sum() / weight.sum()


def shape_loss(net: VideoNet, b: Batch) -> torch.Tensor:
    pred = shape(net, b)
    return weighted_l1(pred, b.depth, b.moving) + 0.5 * gradient_l1(pred, b.depth)


def rgb_loss(pred: torch.Tensor, target: torch.Tensor, moving: torch.Tensor) -> torch.Tensor:
    flat_p, flat_t = pred.flatten(0, 1), target.flatten(0, 1)
    return weighted_l1(pred, target, moving) + 0.1 * (1 - ssim(flat_p.clamp(0, 1), flat_t)).mean()


def augment_depth(depth: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """Ground-truth depth with 5 % noise and, per clip at random, a 3x3 blur."""
    noisy = depth + 0.05 * depth * torch.randn(depth.shape, generator=generator)
    B, T, C, H, W = depth.shape
    blurred = F.avg_pool2d(F.pad(noisy.reshape(B * T, C, H, W), [1] * 4, mode="replicate"), 3, 1).reshape(depth.shape)
    pick = torch.rand(B, generator=generator) < 0.5
    return torch.where(pick[:, None, None, None, None], blurred, noisy)


def stage2_sampler(sampler, stage1: VideoNet | None, seed: int, gt_fraction: float = 0.5):
    """step -> (Batch, depth input): the frozen stage 1's depth for a random (1 - gt_fraction) of the
    clips, augmented ground truth for the rest (all ground truth when there is no stage 1)."""
    def sample(step: int):
        b = sampler(step)
        generator = torch.Generator().manual_seed(int(np.random.default_rng([seed, step, 2]).integers(2 ** 31)))
        depth = augment_depth(b.depth, generator)
        if stage1 is not None:
            with torch.no_grad():
                predicted = shape(stage1, b)
            use_gt = torch.rand(len(depth), generator=generator) < gt_fraction
            depth = torch.where(use_gt[:, None, None, None, None], depth, predicted)
        return b, depth

    return sample


def stage2_loss(net: VideoNet, batch_and_depth) -> torch.Tensor:
    b, depth = batch_and_depth
    return rgb_loss(appearance(net, b.image0, depth), b.rgb, b.moving)
