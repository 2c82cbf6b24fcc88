"""The layout-to-image model (spec §2.3): a small UNet with GLIGEN-style grounding tokens.

- Grounding tokens (GLIGEN eq. 5): tok_k = MLP([text_emb(caption_k) ; Fourier(bbox_k, 8 freqs)]).
- Box-masked cross-attention (InstanceDiffusion-like): a pixel attends only to the tokens whose box
  contains it, plus a learned null token; the result enters the residual stream through a
  zero-initialised tanh gate (GLIGEN's gated self-attention gate), so training starts from the
  layout-free model.
- Flow matching / rectified flow (flow.py) predicts v = eps - x from x_t = (1 - t) x + t eps.
Dropping every token gives the same network's layout-blind mode: classifier-free guidance's
unconditional branch and the gate's control.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F

FOURIER_FREQS = 8  # GLIGEN's box embedding, spec §2.3


@dataclass(frozen=True)
class ModelConfig:
    text_dim: int  # caption-embedding width (bow or MiniLM)
    channels: tuple[int, int, int] = (16, 32, 64)  # spec: 16-32-64 tiny, 24-48-96 small
    token_dim: int = 64


def fourier_boxes(boxes: torch.Tensor) -> torch.Tensor:
    """(..., 4) normalised xyxy -> (..., 4 * 2 * FOURIER_FREQS) sin/cos features."""
    freqs = (2.0 ** torch.arange(FOURIER_FREQS, device=boxes.device)) * math.pi
    angles = boxes.unsqueeze(-1) * freqs  # (..., 4, F)
    return torch.cat([angles.sin(), angles.cos()], dim=-1).flatten(-2)


class GroundingTokens(nn.Module):
    """tok_k = MLP([text_k ; Fourier(box_k)])."""

    def __init__(self, text_dim: int, token_dim: int) -> None:
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(text_dim + 8 * FOURIER_FREQS, 2 * token_dim), nn.SiLU(),
                                 nn.Linear(2 * token_dim, token_dim))

    def forward(self, text: torch.Tensor, boxes: torch.Tensor) -> torch.Tensor:
        return self.mlp(torch.cat([text, fourier_boxes(boxes)], dim=-1))  # (batch, K, token_dim)


def inside_boxes(boxes: torch.Tensor, height: int, width: int) -> torch.Tensor:
    """(batch, K, 4) normalised xyxy -> (batch, H*W, K) bool: pixel centre inside box k."""
    ys = (torch.arange(height, device=boxes.device) + 0.5) / height
    xs = (torch.arange(width, device=boxes.device) + 0.5) / width
    y, x = torch.meshgrid(ys, xs, indexing="ij")
    x, y = x.reshape(1, -1, 1), y.reshape(1, -1, 1)
    b = boxes.unsqueeze(1)  # (batch, 1, K, 4)
    return (x >= b[..., 0]) & (x < b[..., 2]) & (y >= b[..., 1]) & (y < b[..., 3])


class GatedBoxAttention(nn.Module):
    """x + tanh(gate) * Attn(x, tokens), each pixel restricted to the tokens whose box holds it."""

    def __init__(self, channels: int, token_dim: int) -> None:
        super().__init__()
        self.norm = nn.GroupNorm(min(8, channels), channels)
        self.query = nn.Linear(channels, channels)
        self.key, self.value = nn.Linear(token_dim, channels), nn.Linear(token_dim, channels)
        self.null = nn.Parameter(torch.zeros(1, 1, token_dim))
        self.out = nn.Linear(channels, channels)
        self.gate = nn.Parameter(torch.zeros(1))  # GLIGEN: zero-init, so the layout path opens gradually

    def forward(self, x: torch.Tensor, tokens: torch.Tensor, boxes: torch.Tensor, present: torch.Tensor) -> torch.Tensor:
        batch, channels, height, width = x.shape
        q = self.query(self.norm(x).flatten(2).transpose(1, 2))  # (batch, HW, C)
        keyed = torch.cat([self.null.expand(batch, 1, -1), tokens], dim=1)  # (batch, 1 + K, token_dim)
        k, v = self.key(keyed), self.value(keyed)
        allowed = inside_boxes(boxes, height, width) & present.unsqueeze(1)  # (batch, HW, K)
        allowed = torch.cat([torch.ones_like(allowed[..., :1]), allowed], dim=-1)  # the null token always
        scores = (q @ k.transpose(1, 2)) / math.sqrt(channels)  # (batch, HW, 1 + K)
        attended = scores.masked_fill(~allowed, float("-inf")).softmax(-1) @ v  # (batch, HW, C)
        update = self.out(attended).transpose(1, 2).reshape(batch, channels, height, width)
        return x + torch.tanh(self.gate) * update


class ResBlock(nn.Module):
    def __init__(self, c_in: int, c_out: int, time_dim: int) -> None:
        super().__init__()
        self.norm1, self.conv1 = nn.GroupNorm(min(8, c_in), c_in), nn.Conv2d(c_in, c_out, 3, padding=1)
        self.time = nn.Linear(time_dim, c_out)
        self.norm2, self.conv2 = nn.GroupNorm(min(8, c_out), c_out), nn.Conv2d(c_out, c_out, 3, padding=1)
        self.skip = nn.Conv2d(c_in, c_out, 1) if c_in != c_out else nn.Identity()

    def forward(self, x: torch.Tensor, time: torch.Tensor) -> torch.Tensor:
        h = self.conv1(F.silu(self.norm1(x))) + self.time(time)[:, :, None, None]
        return self.skip(x) + self.conv2(F.silu(self.norm2(h)))


def time_embedding(t: torch.Tensor, dim: int) -> torch.Tensor:
    """Sinusoidal features of t in [0, 1] (scaled by 1000 as in DDPM)."""
    half = dim // 2
    freqs = torch.exp(-math.log(10000.0) * torch.arange(half, device=t.device) / half)
    angles = 1000.0 * t[:, None] * freqs[None]
    return torch.cat([angles.sin(), angles.cos()], dim=-1)


class LayoutUNet(nn.Module):
    """Three resolutions (H, H/2, H/4), a gated box attention after every residual block."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        c1, c2, c3 = config.channels
        self.config, time_dim = config, 4 * c1
        self.time_mlp = nn.Sequential(nn.Linear(c1, time_dim), nn.SiLU(), nn.Linear(time_dim, time_dim))
        self.tokens = GroundingTokens(config.text_dim, config.token_dim)
        self.conv_in = nn.Conv2d(3, c1, 3, padding=1)
        self.down = nn.ModuleList([ResBlock(c1, c1, time_dim), ResBlock(c1, c2, time_dim), ResBlock(c2, c3, time_dim)])
        self.pool = nn.ModuleList([nn.Conv2d(c1, c1, 3, stride=2, padding=1), nn.Conv2d(c2, c2, 3, stride=2, padding=1)])
        self.up = nn.ModuleList([ResBlock(c3 + c2, c2, time_dim), ResBlock(c2 + c1, c1, time_dim)])
        widths = (c1, c2, c3, c2, c1)
        self.attn = nn.ModuleList([GatedBoxAttention(c, config.token_dim) for c in widths])
        self.norm_out, self.conv_out = nn.GroupNorm(min(8, c1), c1), nn.Conv2d(c1, 3, 3, padding=1)

    def forward(self, x: torch.Tensor, t: torch.Tensor, text: torch.Tensor, boxes: torch.Tensor,
                present: torch.Tensor) -> torch.Tensor:
        """x (batch, 3, H, W), t (batch,), text (batch, K, text_dim), boxes (batch, K, 4), present (batch, K)."""
        time = self.time_mlp(time_embedding(t, self.config.channels[0]))
        tokens = self.tokens(text, boxes)
        ground = lambda k, h: self.attn[k](h, tokens, boxes, present)  # noqa: E731
        h1 = ground(0, self.down[0](self.conv_in(x), time))  # (batch, c1, H, W)
        h2 = ground(1, self.down[1](self.pool[0](h1), time))  # (batch, c2, H/2, W/2)
        h3 = ground(2, self.down[2](self.pool[1](h2), time))  # (batch, c3, H/4, W/4)
        u2 = ground(3, self.up[0](torch.cat([F.interpolate(h3, scale_factor=2.0), h2], 1), time))
        u1 = ground(4, self.up[1](torch.cat([F.interpolate(u2, scale_factor=2.0), h1], 1), time))
        return self.conv_out(F.silu(self.norm_out(u1)))
