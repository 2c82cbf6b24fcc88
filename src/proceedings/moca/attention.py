"""MoCAttention: component-level sparse attention (MoCA §3, spec §2.2), a drop-in block on [B, N, T, d].

Each component i carries T = L + L/σ + 1 tokens: its L content tokens, L/σ compression tokens and one
anchor (packed by the DiT, see model.py). For component i the keys are

    its own T tokens  +  the T tokens of its top-k components  +  the L/σ + 1 summary tokens of every other,

so the context per component is T(1 + k) + (N - 1 - k)(L/σ + 1) instead of N·T: linear in N for fixed k
and σ. The top-k come from a router scoring component pairs on their anchors, s_ij = <W_q a_i, W_k a_j>/√d;
selection is discrete, so the router learns through a bias log σ(s_ij) added to the logits of every key
of component j (inferred, spec §2.2). Keys are gathered by index tensors into one batched SDPA call: no
full-length mask, no Python loop. With k >= N - 1 every other component is selected, which is exact full
attention. The baselines change only the key set: `full` (all N·T tokens, PartCrafter-style global
attention), `topk-drop` (the same routing, unselected components discarded) and `local` (own tokens only).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from proceedings.core.errors import ProceedingsError

MODES = ("full", "moca", "topk-drop", "local")
ROUTERS = ("learned", "meanpool", "distance", "random")


def check_shape(points: int, k: int, sigma: int) -> None:
    """One-line errors for a compression ratio that does not divide L or a negative k."""
    if k < 0:
        raise ProceedingsError(f"k must be >= 0, got {k}")
    if sigma < 1 or points % sigma:
        raise ProceedingsError(f"sigma={sigma} must divide the {points} tokens per component (L)")


def summary_tokens(points: int, sigma: int) -> int:
    """c = L/σ compression tokens + 1 anchor."""
    return points // sigma + 1


def context_size(n: int, points: int, k: int, sigma: int, mode: str = "moca") -> int:
    """Keys seen by one component's queries (spec §2.2): the cost that separates the arms."""
    tokens, c = points + summary_tokens(points, sigma), summary_tokens(points, sigma)
    if mode == "local" or n <= 1:
        return tokens
    if mode == "full" or k >= n - 1:
        return n * tokens
    if mode == "topk-drop":
        return tokens * (1 + k)
    return tokens * (1 + k) + (n - 1 - k) * c


class MoCAttention(nn.Module):
    """Multi-head attention over components: x (B, N, T, d) -> (B, N, T, d), T = L + L/σ + 1.

    `valid` (B, N) marks real components in a padded batch: padded ones are never keys (bias -inf) and
    never enter a top-k. `positions` (B, N, 3) feeds the `distance` router (else anchors are used).
    """

    def __init__(self, dim: int, heads: int, points: int, k: int = 4, sigma: int = 8, mode: str = "moca",
                 router: str = "learned", router_bias: bool = True):
        super().__init__()
        if mode not in MODES:
            raise ProceedingsError(f"unknown attention '{mode}'; choose one of: {', '.join(MODES)}")
        if router not in ROUTERS:
            raise ProceedingsError(f"unknown router '{router}'; choose one of: {', '.join(ROUTERS)}")
        if dim % heads:
            raise ProceedingsError(f"dim={dim} must be a multiple of heads={heads}")
        check_shape(points, k, sigma)
        self.dim, self.heads, self.points, self.k, self.sigma = dim, heads, points, k, sigma
        self.mode, self.router, self.router_bias = mode, router, router_bias and router == "learned"
        self.summary = summary_tokens(points, sigma)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        if router == "learned" and mode in ("moca", "topk-drop"):
            self.route_q = nn.Linear(dim, dim, bias=False)
            self.route_k = nn.Linear(dim, dim, bias=False)

    @property
    def tokens(self) -> int:
        return self.points + self.summary

    def forward(self, x: torch.Tensor, valid: torch.Tensor | None = None,
                positions: torch.Tensor | None = None) -> torch.Tensor:
        b, n, t, d = x.shape
        if n == 0:
            raise ProceedingsError("an assembly with N = 0 components has nothing to attend to")
        if t != self.tokens:
            raise ProceedingsError(f"expected {self.tokens} tokens per component (L + L/sigma + 1), got {t}")
        q, k, v = self.qkv(x).view(b, n, t, 3, self.heads, d // self.heads).unbind(3)  # each (B, N, T, h, dh)
        if self.mode == "local" or n == 1:
            out = self._local(q, k, v)
        elif self.mode == "full":
            out = self._global(q, k, v, valid)
        else:
            scores = self.scores(x, q, k, valid, positions)
            out = self._routed(q, k, v, scores, valid)
        return self.out(out.reshape(b, n, t, d))

    def scores(self, x: torch.Tensor, q: torch.Tensor, k: torch.Tensor, valid: torch.Tensor | None,
               positions: torch.Tensor | None) -> torch.Tensor:
        """Router scores s_ij (B, N, N) of component j for component i."""
        if self.router == "learned":  # s_ij = <W_q a_i, W_k a_j> / sqrt(d), a = anchor (last token)
            anchors = x[:, :, -1]
            return self.route_q(anchors) @ self.route_k(anchors).transpose(1, 2) / math.sqrt(self.dim)
        if self.router == "meanpool":  # MoBA: mean query of i against the mean key of j, over heads
            qm, km = q.mean(2).flatten(2), k.mean(2).flatten(2)
            return qm @ km.transpose(1, 2) / math.sqrt(self.dim)
        if self.router == "distance":  # nearest components first
            where = positions if positions is not None else x[:, :, -1]
            return -torch.cdist(where, where)
        return torch.rand(x.shape[0], x.shape[1], x.shape[1], device=x.device)

    def _local(self, q, k, v):
        b, n, t, h, dh = q.shape
        flat = [z.reshape(b * n, t, h, dh).transpose(1, 2) for z in (q, k, v)]
        return F.scaled_dot_product_attention(*flat).transpose(1, 2).reshape(b, n, t, h * dh)

    def _global(self, q, k, v, valid):
        b, n, t, h, dh = q.shape
        flat = [z.reshape(b, n * t, h, dh).transpose(1, 2) for z in (q, k, v)]  # (B, h, N·T, dh)
        mask = None
        if valid is not None and not bool(valid.all()):
            keep = valid[:, :, None].expand(b, n, t).reshape(b, 1, 1, n * t)
            mask = torch.zeros(keep.shape, dtype=q.dtype, device=q.device).masked_fill(~keep, float("-inf"))
        out = F.scaled_dot_product_attention(*flat, attn_mask=mask)
        return out.transpose(1, 2).reshape(b, n, t, h * dh)

    def routing(self, scores: torch.Tensor, valid: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Per component i (B, N, ·): the components seen in full (i itself, then its top-k by score) and, for
        `moca`, the rest, seen through their summary tokens (None when nothing is left or for `topk-drop`)."""
        b, n, _ = scores.shape
        dev = scores.device
        k = min(self.k, n - 1)
        eye = torch.eye(n, dtype=torch.bool, device=dev)
        ranked = scores.detach().masked_fill(eye, float("-inf"))
        if valid is not None:  # padded components rank below every real one and above i itself
            ranked = ranked.masked_fill(~valid[:, None, :] & ~eye, torch.finfo(scores.dtype).min)
        chosen = ranked.topk(k, dim=-1).indices  # (B, N, k)
        own = torch.arange(n, device=dev).view(1, n, 1).expand(b, n, 1)
        whole = torch.cat([own, chosen], -1)
        if self.mode != "moca" or k == n - 1:
            return whole, None
        taken = torch.zeros(b, n, n, dtype=torch.uint8, device=dev).scatter_(2, chosen, 1) | eye.to(torch.uint8)
        return whole, taken.sort(dim=-1, stable=True).indices[..., : n - 1 - k]  # unselected, in order

    def key_plan(self, scores: torch.Tensor, valid: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
        """Token indices (B, N, ctx) into the flattened N·T axis and the component owning each key, in the
        order `_routed` gathers them."""
        t = self.tokens
        tokens, owners = [], []
        for comps, span in zip(self.routing(scores, valid), (range(t), range(self.points, t))):
            if comps is not None:
                span = torch.tensor(span, device=scores.device)
                tokens.append((comps[..., None] * t + span).flatten(2))
                owners.append(comps[..., None].expand(*comps.shape, len(span)).flatten(2))
        return torch.cat(tokens, -1), torch.cat(owners, -1)

    def _routed(self, q, k, v, scores, valid):
        """One SDPA call over each component's keys, gathered by `index_select` on the flattened token axis (its
        backward is an `index_add`, not an accumulating `index_put`). The router's bias log σ(s_ij) rides in one
        extra channel (q' = [q, 1], k' = [k, √d_h·b_ij], v' = [v, 0], scale 1/√d_h): the same logits
        q·k/√d_h + b_ij and the same output, but SDPA keeps its fused kernel, which it leaves for the unfused
        one whenever a float mask needs a gradient."""
        b, n, t, h, dh = q.shape
        index, owner = self.key_plan(scores, valid)  # (B, N, ctx)
        ctx = index.shape[-1]
        own = owner == torch.arange(n, device=q.device).view(1, n, 1)
        if self.router_bias:  # the channel is appended per token, before the gather multiplies the tokens
            q, k, v = (torch.cat([z, z.new_full((b, n, t, h, 1), fill)], -1) for z, fill in ((q, 1.0), (k, 0.0), (v, 0.0)))
        width = q.shape[-1]
        flat = (index + torch.arange(b, device=q.device).view(b, 1, 1) * (n * t)).flatten()
        keys, values = (z.reshape(b * n * t, h, width).index_select(0, flat).view(b, n, ctx, h, width) for z in (k, v))
        if self.router_bias:  # log sigmoid(s_ij) on every key of j != i: the router's gradient path
            bias = torch.where(own, 0.0, F.logsigmoid(scores.gather(2, owner)))  # (B, N, ctx)
            keys[..., dh] = math.sqrt(dh) * bias[..., None]
        mask = None
        if valid is not None and not bool(valid.all()):  # a padded component sees only itself, is seen by none
            mask = (valid.gather(1, owner.flatten(1)).view_as(owner) | own).reshape(b * n, 1, 1, ctx)
        out = F.scaled_dot_product_attention(
            q.reshape(b * n, t, h, width).transpose(1, 2), keys.reshape(b * n, ctx, h, width).transpose(1, 2),
            values.reshape(b * n, ctx, h, width).transpose(1, 2), attn_mask=mask, scale=1 / math.sqrt(dh))
        return out.transpose(1, 2)[..., :dh].reshape(b, n, t, h * dh)
