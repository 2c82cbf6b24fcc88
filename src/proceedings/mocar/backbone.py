"""The decoder all learned arms share: factorised temporal / agent-map / agent-agent / mode attention.

Spec §2.3. Tokens are (B, K, T, d): K mode streams of T segment tokens of the focal agent. Each block
applies (1) causal self-attention over a stream's tokens, (2) cross-attention from every token to its
context: map chunks and neighbours, encoded by their pose *relative to the token's current frame*
(distance, bearing, relative heading -> Fourier features -> MLP, QCNet style), (3) self-attention across
the K streams at the same step, (4) an MLP. Only relative poses enter, so predictions are invariant to
rotating and translating the scene. MoCAR, SMART-lite and QCNet-lite differ only in what they feed in
and read out, which is how their parameters, d and L are matched. A token never changes once it is
computed (attention is causal in time and per step across modes), so rollouts decode incrementally:
each block keeps its earlier tokens' normalised inputs (`past`) and only the new token is computed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

from proceedings.mocar.batch import Batch
from proceedings.mocar.frames import relative

POSITION_SCALE_M = 20.0
MAX_OFFSET = 24  # step embeddings cover offsets -MAX_OFFSET..MAX_OFFSET from the current state


@dataclass(frozen=True)
class BackboneConfig:
    d: int = 64
    layers: int = 2
    heads: int = 4
    fourier: int = 4  # frequencies per relative-pose feature
    mode_attention: bool = True


def fourier(x: torch.Tensor, n: int) -> torch.Tensor:
    """[x, sin(2^k x), cos(2^k x)] for k < n, over the last dim."""
    freqs = 2.0 ** torch.arange(n, dtype=x.dtype, device=x.device)
    angles = x[..., None] * freqs
    return torch.cat((x, torch.sin(angles).flatten(-2), torch.cos(angles).flatten(-2)), dim=-1)


class ContextEncoder(nn.Module):
    """Map chunks and neighbours as seen from each token's frame: (B, Kf, T, C, d) and a validity mask."""

    def __init__(self, cfg: BackboneConfig):
        super().__init__()
        self.n = cfg.fourier
        width = 5 * (1 + 2 * cfg.fourier)  # (x, y, distance, cos, sin) each with Fourier features
        self.map = nn.Sequential(nn.Linear(width + 2, cfg.d), nn.ReLU(), nn.Linear(cfg.d, cfg.d))
        self.agent = nn.Sequential(nn.Linear(width + 1, cfg.d), nn.ReLU(), nn.Linear(cfg.d, cfg.d))
        self.null = nn.Parameter(torch.zeros(cfg.d))  # always-valid key, so no token attends to nothing

    def pose_features(self, frames: torch.Tensor, poses: torch.Tensor) -> torch.Tensor:
        rel = relative(frames, poses)
        xy = rel[..., :2] / POSITION_SCALE_M
        dist = xy.norm(dim=-1, keepdim=True)
        return fourier(torch.cat((xy, dist, torch.cos(rel[..., 2:]), torch.sin(rel[..., 2:])), dim=-1), self.n)

    def forward(self, batch: Batch, frames: torch.Tensor, first: int) -> tuple[torch.Tensor, torch.Tensor]:
        """`frames` (B, Kf, T, 3) are the frames of tokens first..first+T-1 (Kf = 1 when streams share them)."""
        B, K, T, _ = frames.shape
        f = frames[:, :, :, None, :]  # (B, Kf, T, 1, 3)
        mp = batch.map_pose[:, None, None]  # (B, 1, 1, M, 3)
        m_extra = torch.stack((batch.map_length / 8.0, batch.map_intersection), dim=-1)[:, None, None]
        m = self.map(torch.cat((self.pose_features(f, mp), m_extra.expand(B, K, T, -1, -1)), dim=-1))
        nb = batch.neighbour_pose[:, :, first:first + T].transpose(1, 2)[:, None]  # (B, 1, T, N, 3)
        sp = batch.neighbour_speed[:, :, first:first + T].transpose(1, 2)[:, None, :, :, None] / 10.0
        a = self.agent(torch.cat((self.pose_features(f, nb), sp.expand(B, K, T, -1, -1)), dim=-1))
        null = self.null.expand(B, K, T, 1, -1)
        mask = torch.cat((batch.map_valid[:, None, None].expand(B, K, T, -1),
                          batch.neighbour_valid[:, :, first:first + T].transpose(1, 2)[:, None].expand(B, K, T, -1),
                          torch.ones(B, K, T, 1, dtype=torch.bool, device=null.device)), dim=-1)
        return torch.cat((m, a, null), dim=3), mask


class ContextAttention(nn.Module):
    """Cross-attention from tokens (B, K, T, d) to their own context (B, Kf, T, C, d), Kf in {1, K}:
    keys and values are projected once per context and broadcast over the mode streams."""

    def __init__(self, d: int, heads: int):
        super().__init__()
        self.heads = heads
        self.query, self.key_value, self.out = nn.Linear(d, d), nn.Linear(d, 2 * d), nn.Linear(d, d)

    def forward(self, x: torch.Tensor, ctx: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        B, K, T, d = x.shape
        Kf, C, h = ctx.shape[1], ctx.shape[3], self.heads
        q = self.query(x).view(B, K, T, h, 1, d // h)
        k, v = self.key_value(ctx).view(B, Kf, T, C, 2, h, d // h).unbind(4)
        scores = q @ k.permute(0, 1, 2, 4, 5, 3) / math.sqrt(d // h)  # (B, K, T, h, 1, C)
        scores = scores.masked_fill(~mask[:, :, :, None, None, :], float("-inf"))
        out = torch.softmax(scores, dim=-1) @ v.transpose(3, 4)  # (B, K, T, h, 1, d/h)
        return self.out(out.reshape(B, K, T, d))


class Block(nn.Module):
    def __init__(self, cfg: BackboneConfig):
        super().__init__()
        d, h = cfg.d, cfg.heads
        self.norms = nn.ModuleList(nn.LayerNorm(d) for _ in range(4))
        self.temporal = nn.MultiheadAttention(d, h, batch_first=True)
        self.context = ContextAttention(d, h)
        self.modes = nn.MultiheadAttention(d, h, batch_first=True) if cfg.mode_attention else None
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, h: torch.Tensor, ctx: torch.Tensor, ctx_mask: torch.Tensor,
                past: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """h (B, K, T, d) new tokens after `past` (B*K, P, d), the earlier tokens' normalised inputs."""
        B, K, T, d = h.shape
        x = self.norms[0](h).reshape(B * K, T, d)
        keys = x if past is None else torch.cat((past, x), dim=1)
        P = keys.shape[1] - T
        causal = torch.ones(T, P + T, dtype=torch.bool, device=h.device).triu(P + 1)
        h = h + self.temporal(x, keys, keys, attn_mask=causal, need_weights=False)[0].reshape(B, K, T, d)
        h = h + self.context(self.norms[1](h), ctx, ctx_mask)
        if self.modes is not None and K > 1:
            x = self.norms[2](h).transpose(1, 2).reshape(B * T, K, d)
            h = h + self.modes(x, x, x, need_weights=False)[0].reshape(B, T, K, d).transpose(1, 2)
        return h + self.mlp(self.norms[3](h)), keys


class Backbone(nn.Module):
    """Token embeddings in, contextualised tokens out; `first` places the tokens after the history's start."""

    def __init__(self, cfg: BackboneConfig):
        super().__init__()
        self.cfg = cfg
        self.step = nn.Embedding(2 * MAX_OFFSET + 1, cfg.d)
        self.context = ContextEncoder(cfg)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.layers))
        self.norm = nn.LayerNorm(cfg.d)

    def forward(self, tokens: torch.Tensor, frames: torch.Tensor, batch: Batch, first: int = 0,
                past: list[torch.Tensor] | None = None) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """tokens (B, K, T, d) are tokens first..first+T-1; frames (B, K, T, 3), or (B, 1, T, 3) when the
        streams share them. Returns the outputs and the cache to pass as `past` with the next tokens."""
        T = tokens.shape[2]
        offsets = torch.arange(first, first + T, device=tokens.device) - (batch.history - 1) + MAX_OFFSET
        h = tokens + self.step(offsets)
        ctx, mask = self.context(batch, frames, first)
        cache = []
        for i, block in enumerate(self.blocks):
            h, keys = block(h, ctx, mask, None if past is None else past[i])
            cache.append(keys)
        return self.norm(h), cache
