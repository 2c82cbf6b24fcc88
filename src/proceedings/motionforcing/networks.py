"""The one small video UNet family of every trained arm (spec §2.4, `--temporal channels`).

The T frames of a clip are folded into channels of one 2D UNet (input T*c, output T*c_out): every
output frame sees every condition frame, which masked-point recovery needs, and it was the prototype's
variant. Three levels (w, 2w, 4w), two 3x3 convs per level, GroupNorm, SiLU, skip connections.
Outputs are residuals on frame 0 (depth: D0, RGB: I0), so an untrained net starts as copy-I0.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F


def _groups(channels: int) -> int:
    return next(g for g in (8, 4, 2, 1) if channels % g == 0)


class Block(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.GroupNorm(_groups(cout), cout), nn.SiLU(),
                                 nn.Conv2d(cout, cout, 3, padding=1), nn.GroupNorm(_groups(cout), cout), nn.SiLU())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


class UNet(nn.Module):
    """Widths (w, 2w, 4w) for an int `width`, or any (w1, w2, w3) (parameter matching needs finer steps)."""

    def __init__(self, cin: int, cout: int, width: int | tuple[int, int, int]):
        super().__init__()
        w1, w2, w3 = (width, 2 * width, 4 * width) if isinstance(width, int) else width
        self.down = nn.ModuleList([Block(cin, w1), Block(w1, w2), Block(w2, w3)])
        self.up = nn.ModuleList([Block(w3 + w2, w2), Block(w2 + w1, w1)])
        self.head = nn.Conv2d(w1, cout, 1)
        nn.init.zeros_(self.head.weight)
        nn.init.zeros_(self.head.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        skips = []
        for i, block in enumerate(self.down):
            x = block(x if i == 0 else F.avg_pool2d(x, 2))
            skips.append(x)
        for block, skip in zip(self.up, reversed(skips[:-1])):
            x = block(torch.cat([F.interpolate(x, scale_factor=2.0, mode="nearest"), skip], 1))
        return self.head(x)


def parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def unet_parameters(cin: int, cout: int, widths: tuple[int, int, int]) -> int:
    """UNet's parameter count without building it: a Block(i, o) has 9io + 9o^2 + 6o (convs, biases, norms)."""
    block = lambda i, o: 9 * i * o + 9 * o * o + 6 * o  # noqa: E731
    w1, w2, w3 = widths
    return (block(cin, w1) + block(w1, w2) + block(w2, w3) + block(w3 + w2, w2) + block(w2 + w1, w1)
            + w1 * cout + cout)


class VideoNet(nn.Module):
    """Static inputs (C_s, H, W) plus per-frame inputs (T, C_f, H, W) -> per-frame outputs (T, C_o, H, W),
    as a residual on `base` (T, C_o, H, W): the frame-0 depth or RGB repeated."""

    def __init__(self, frames: int, static_channels: int, frame_channels: int, out_channels: int,
                 width: int | tuple[int, int, int]):
        super().__init__()
        self.frames, self.out_channels = frames, out_channels
        self.unet = UNet(static_channels + frames * frame_channels, frames * out_channels, width)

    def forward(self, static: torch.Tensor, per_frame: torch.Tensor, base: torch.Tensor) -> torch.Tensor:
        B, T, _, H, W = per_frame.shape
        x = torch.cat([static, per_frame.reshape(B, -1, H, W)], 1)  # (B, C_s + T*C_f, H, W)
        return base + self.unet(x).reshape(B, T, self.out_channels, H, W)
