"""The one small video UNet family of every trained arm (spec §2.4), in two temporal layouts.

`channels` (the records' and the prototype's): the T frames of a clip are folded into channels of one 2D
UNet (input T*c, output T*c_out), so every output frame sees every condition frame, which masked-point
recovery needs. `factorised` (the spec's backbone): each frame runs through the same 2D UNet, and after
every block a depth-wise temporal 1D conv (k = 3) mixes each channel with its neighbouring frames; the
frame index t/T is an input channel. Both: three levels (w, 2w, 4w), two 3x3 convs per level, GroupNorm,
SiLU, skip connections; outputs are residuals on frame 0 (depth: D0, RGB: I0), zero-initialised heads,
so an untrained net starts as copy-I0.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from proceedings.core.errors import ProceedingsError


def _groups(channels: int) -> int:
    return next(g for g in (8, 4, 2, 1) if channels % g == 0)


class Block(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.GroupNorm(_groups(cout), cout), nn.SiLU(),
                                 nn.Conv2d(cout, cout, 3, padding=1), nn.GroupNorm(_groups(cout), cout), nn.SiLU())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


def widths(width: int | tuple[int, int, int]) -> tuple[int, int, int]:
    """(w, 2w, 4w) for an int `width`, or any (w1, w2, w3) (parameter matching needs finer steps)."""
    return (width, 2 * width, 4 * width) if isinstance(width, int) else tuple(width)


class UNet(nn.Module):
    """Three levels of `widths(width)`; per level two 3x3 convs, skips from the way down to the way up."""

    def __init__(self, cin: int, cout: int, width: int | tuple[int, int, int]):
        super().__init__()
        w1, w2, w3 = widths(width)
        self.down = nn.ModuleList([Block(cin, w1), Block(w1, w2), Block(w2, w3)])
        self.up = nn.ModuleList([Block(w3 + w2, w2), Block(w2 + w1, w1)])
        self.head = nn.Conv2d(w1, cout, 1)
        nn.init.zeros_(self.head.weight)
        nn.init.zeros_(self.head.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        skips = []
        for i, block in enumerate(self.down):
            x = self.after_block(i, block(x if i == 0 else F.avg_pool2d(x, 2)))
            skips.append(x)
        for i, (block, skip) in enumerate(zip(self.up, reversed(skips[:-1])), len(self.down)):
            x = self.after_block(i, block(torch.cat([F.interpolate(x, scale_factor=2.0, mode="nearest"), skip], 1)))
        return self.head(x)

    def after_block(self, index: int, x: torch.Tensor) -> torch.Tensor:
        """What follows block `index` (0-4, down then up): nothing here; the factorised layout mixes frames."""
        return x


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


class TemporalConv(nn.Module):
    """Depth-wise conv over the frames (k = 3, zero-padded ends), added to its input: (B*T, C, H, W) -> same."""

    def __init__(self, channels: int, frames: int):
        super().__init__()
        self.frames = frames
        self.conv = nn.Conv1d(channels, channels, 3, padding=1, groups=channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        BT, C, H, W = x.shape
        T = self.frames
        seq = x.reshape(BT // T, T, C, H, W).permute(0, 3, 4, 2, 1).reshape(-1, C, T)  # (B*H*W, C, T)
        mixed = self.conv(seq).reshape(BT // T, H, W, C, T).permute(0, 4, 3, 1, 2).reshape(BT, C, H, W)
        return x + mixed


class FactorisedUNet(UNet):
    """UNet applied per frame (frames in the batch axis), a TemporalConv after each of its five blocks."""

    def __init__(self, cin: int, cout: int, width: int | tuple[int, int, int], frames: int):
        super().__init__(cin, cout, width)
        w1, w2, w3 = widths(width)
        self.temporal = nn.ModuleList([TemporalConv(w, frames) for w in (w1, w2, w3, w2, w1)])  # after each block

    def after_block(self, index: int, x: torch.Tensor) -> torch.Tensor:  # x (B*T, C, H, W)
        return self.temporal[index](x)


class FactorisedVideoNet(nn.Module):
    """VideoNet's interface on the factorised UNet: per frame [static inputs, frame inputs, t/T] -> outputs."""

    def __init__(self, frames: int, static_channels: int, frame_channels: int, out_channels: int,
                 width: int | tuple[int, int, int]):
        super().__init__()
        self.frames, self.out_channels = frames, out_channels
        self.unet = FactorisedUNet(static_channels + frame_channels + 1, out_channels, width, frames)

    def forward(self, static: torch.Tensor, per_frame: torch.Tensor, base: torch.Tensor) -> torch.Tensor:
        B, T, _, H, W = per_frame.shape
        clock = (torch.arange(T, dtype=per_frame.dtype) / T).reshape(1, T, 1, 1, 1).expand(B, T, 1, H, W)
        x = torch.cat([static[:, None].expand(B, T, -1, H, W), per_frame, clock], 2)  # (B, T, C_s + C_f + 1, H, W)
        return base + self.unet(x.flatten(0, 1)).reshape(B, T, self.out_channels, H, W)


TEMPORAL = ("channels", "factorised")  # spec §2.4 `--temporal`


def video_net(frames: int, static_channels: int, frame_channels: int, out_channels: int,
              width: int | tuple[int, int, int], temporal: str = "channels") -> VideoNet | FactorisedVideoNet:
    """A network of the family in the chosen temporal layout."""
    if temporal not in TEMPORAL:
        raise ProceedingsError(f"unknown temporal layout '{temporal}'; choose one of {', '.join(TEMPORAL)}")
    net = VideoNet if temporal == "channels" else FactorisedVideoNet
    return net(frames, static_channels, frame_channels, out_channels, width)


def video_net_parameters(frames: int, static_channels: int, frame_channels: int, out_channels: int,
                         width: tuple[int, int, int], temporal: str = "channels") -> int:
    """`parameters(video_net(...))` without building it (parameter matching searches many widths)."""
    if temporal == "channels":
        return unet_parameters(static_channels + frames * frame_channels, frames * out_channels, width)
    w1, w2, w3 = width
    temporal_convs = 4 * (2 * w1 + 2 * w2 + w3)  # five depth-wise k = 3 convs with biases: 4 per channel
    return unet_parameters(static_channels + frame_channels + 1, out_channels, width) + temporal_convs
