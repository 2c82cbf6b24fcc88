"""The decoder all learned arms share: factorised temporal / agent-map / agent-agent / mode attention.

Spec §2.3. Tokens are (B, K, T, d): K mode streams of T segment tokens of the focal agent. Each block
applies (1) causal self-attention over a stream's tokens, (2) cross-attention from every token to its
context: map chunks and neighbours, encoded by their pose *relative to the token's current frame*
(distance, bearing, relative heading -> Fourier features -> MLP, QCNet style), (3) self-attention across
the K streams at the same step, (4) an MLP. Only relative poses enter, so predictions are invariant to
rotating and translating the scene. MoCAR, SMART-lite and QCNet-lite differ only in what they feed in
and read out, which is how their parameters, d and L are matched.
"""

from __future__ import annotations

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
    """Map chunks and neighbours as seen from each token's frame: (B, K, T, C, d) and a validity mask."""

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
        """`frames` (B, K, T, 3) are the frames of tokens first..first+T-1."""
        B, K, T, _ = frames.shape
        f = frames[:, :, :, None, :]  # (B, K, T, 1, 3)
        mp = batch.map_pose[:, None, None]  # (B, 1, 1, M, 3)
        m_extra = torch.stack((batch.map_length / 8.0, batch.map_intersection), dim=-1)[:, None, None]
        m = self.map(torch.cat((self.pose_features(f, mp), m_extra.expand(B, K, T, -1, -1)), dim=-1))
        nb = batch.neighbour_pose[:, :, first:first + T].transpose(1, 2)[:, None]  # (B, 1, T, N, 3)
        sp = batch.neighbour_speed[:, :, first:first + T].transpose(1, 2)[:, None, :, :, None] / 10.0
        a = self.agent(torch.cat((self.pose_features(f, nb), sp.expand(B, K, T, -1, -1)), dim=-1))
        null = self.null.expand(B, K, T, 1, -1)
        mask = torch.cat((batch.map_valid[:, None, None].expand(B, K, T, -1),
                          batch.neighbour_valid[:, :, first:first + T].transpose(1, 2)[:, None].expand(B, K, T, -1),
                          torch.ones(B, K, T, 1, dtype=torch.bool)), dim=-1)
        return torch.cat((m, a, null), dim=3), mask


class Block(nn.Module):
    def __init__(self, cfg: BackboneConfig):
        super().__init__()
        d, h = cfg.d, cfg.heads
        self.norms = nn.ModuleList(nn.LayerNorm(d) for _ in range(4))
        self.temporal = nn.MultiheadAttention(d, h, batch_first=True)
        self.context = nn.MultiheadAttention(d, h, batch_first=True)
        self.modes = nn.MultiheadAttention(d, h, batch_first=True) if cfg.mode_attention else None
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, h: torch.Tensor, ctx: torch.Tensor, ctx_mask: torch.Tensor) -> torch.Tensor:
        B, K, T, d = h.shape
        x = self.norms[0](h).reshape(B * K, T, d)
        causal = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
        h = h + self.temporal(x, x, x, attn_mask=causal, need_weights=False)[0].reshape(B, K, T, d)
        q = self.norms[1](h).reshape(B * K * T, 1, d)
        kv = ctx.reshape(B * K * T, -1, d)
        h = h + self.context(q, kv, kv, key_padding_mask=~ctx_mask.reshape(B * K * T, -1),
                             need_weights=False)[0].reshape(B, K, T, d)
        if self.modes is not None and K > 1:
            x = self.norms[2](h).transpose(1, 2).reshape(B * T, K, d)
            h = h + self.modes(x, x, x, need_weights=False)[0].reshape(B, T, K, d).transpose(1, 2)
        return h + self.mlp(self.norms[3](h))


class Backbone(nn.Module):
    """Token embeddings in, contextualised tokens out; `offsets` place tokens relative to the current step."""

    def __init__(self, cfg: BackboneConfig):
        super().__init__()
        self.cfg = cfg
        self.step = nn.Embedding(2 * MAX_OFFSET + 1, cfg.d)
        self.context = ContextEncoder(cfg)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.layers))
        self.norm = nn.LayerNorm(cfg.d)

    def forward(self, tokens: torch.Tensor, frames: torch.Tensor, batch: Batch, first: int = 0) -> torch.Tensor:
        """tokens (B, K, T, d) for tokens first..first+T-1 of the batch; frames (B, K, T, 3), or (B, 1, T, 3)
        when every stream shares its frames (teacher forcing): the context is then encoded once."""
        B, K, T, _ = tokens.shape
        offsets = torch.arange(first, first + T) - (batch.history - 1) + MAX_OFFSET
        h = tokens + self.step(offsets)
        ctx, mask = self.context(batch, frames, first)
        ctx, mask = ctx.expand(B, K, *ctx.shape[2:]), mask.expand(B, K, *mask.shape[2:])
        for block in self.blocks:
            h = block(h, ctx, mask)
        return self.norm(h)
