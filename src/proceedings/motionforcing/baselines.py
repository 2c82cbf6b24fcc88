"""What Motion Forcing is compared against (issue 30).

B1, direct Point -> RGB (the Tora / MOFA-Video / DragAnything analogue): stage 1's inputs, RGB out, one
UNet of the same family whose width is chosen so that its parameter count matches stage 1 + stage 2
(within 5 %), trained with the same masking, clips, batch order, learning-rate schedule and total
optimiser steps. Copy-I0: frame 0 repeated (the floor every trained arm must clear).
"""

from __future__ import annotations

import torch

from proceedings.core.errors import ProceedingsError
from proceedings.motionforcing.dataset import Batch
from proceedings.motionforcing.networks import VideoNet, video_net, video_net_parameters
from proceedings.motionforcing.stages import PER_FRAME, STATIC, rgb_loss


def direct_net(frames: int, width: int | tuple[int, int, int], temporal: str = "channels") -> VideoNet:
    return video_net(frames, STATIC, PER_FRAME, 3, width, temporal)


def matched_direct_width(frames: int, target_params: int, tolerance: float = 0.05,
                         temporal: str = "channels") -> tuple[int, int, int]:
    """Widths (w, 2w, w3) with a parameter count within `tolerance` of `target_params`, w3 as near 4w as allowed."""
    count = lambda c: video_net_parameters(frames, STATIC, PER_FRAME, 3, c, temporal)  # noqa: E731
    candidates = [(w, 2 * w, w3) for w in range(4, 65) for w3 in range(2 * w, 6 * w + 1)]
    off = lambda c: abs(count(c) - target_params) / target_params  # noqa: E731
    best = min(candidates, key=lambda c: (off(c) > tolerance / 2, abs(c[2] - 4 * c[0]), off(c)))
    got = count(best)
    if abs(got - target_params) > tolerance * target_params:
        raise ProceedingsError(f"no direct-model width matches {target_params} parameters within {tolerance:.0%}")
    return best


def direct(net: VideoNet, b: Batch) -> torch.Tensor:
    """B1: the RGB video (B, T, 3, H, W) straight from the points, residual on I0."""
    T = b.points.shape[1]
    return net(b.static, b.per_frame, b.image0[:, None].expand(-1, T, -1, -1, -1))


def direct_loss(net: VideoNet, b: Batch) -> torch.Tensor:
    return rgb_loss(direct(net, b), b.rgb, b.moving)


def copy_first_frame(b: Batch) -> torch.Tensor:
    T = b.points.shape[1]
    return b.image0[:, None].expand(-1, T, -1, -1, -1).clone()
