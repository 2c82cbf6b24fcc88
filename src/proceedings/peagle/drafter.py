"""The EAGLE-3 drafter both methods share, and P-EAGLE's learnable shared hidden state (spec §2.2-2.3).

Input per element: the target's hidden states after three of its layers (low, mid, high: 3H wide),
projected by `fc` to H, and the embedding of the token that follows that position. The first decoder
layer attends over concat(RMSNorm(embedding), RMSNorm(fc(features))) (2H wide) with the residual stream
fc(features) (EAGLE-3's "midlayer"); further layers are plain Llama layers; a final RMSNorm and the
target's LM head rows of the draft vocabulary (V_d tokens, map `draft_to_target`) give the logits.

- EAGLE-3 (autoregressive): for the k-th draft the drafter runs again, fed its own output hidden state
  (in place of fc(features)) and the embedding of draft k-1: k drafts cost k drafter forwards.
- P-EAGLE (parallel): positions after the last verified token get the learnable `mask_hidden` (3H,
  before `fc`, as in speculators) and a learnable mask embedding: all k drafts come out of one forward.

Attention follows the chain rule of `chain_mask`, shared by training and inference. The embedding and
the LM head rows are the target's and stay frozen.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import torch
import torch.nn.functional as F
from torch import nn

from proceedings.core.errors import ProceedingsError

METHODS = ("eagle3", "peagle")


@dataclass(frozen=True)
class DrafterConfig:
    method: str  # "eagle3" (one forward per draft) or "peagle" (all drafts from one forward)
    hidden_size: int
    num_heads: int
    intermediate_size: int
    layers: int
    feature_layers: tuple[int, ...]  # indices into the target's hidden_states (0 = embeddings)
    target_vocab: int
    draft_vocab: int
    k_train: int  # P-EAGLE: parallel positions trained; EAGLE-3: training-time-test steps
    rope_theta: float = 10000.0
    rms_eps: float = 1e-5
    target_hash: str = ""  # of the target's config and head: a drafter is refused on another target

    def __post_init__(self):
        if self.method not in METHODS:
            raise ProceedingsError(f"unknown drafter method '{self.method}'; choose one of: {', '.join(METHODS)}")
        if self.draft_vocab > self.target_vocab:
            raise ProceedingsError(f"draft vocabulary {self.draft_vocab} is larger than the target's {self.target_vocab}")
        if self.hidden_size % self.num_heads:
            raise ProceedingsError(f"hidden size {self.hidden_size} is not divisible by {self.num_heads} heads")
        if self.layers < 1 or self.k_train < 1:
            raise ProceedingsError(f"a drafter needs at least one layer and K_train >= 1 (got {self.layers}, {self.k_train})")

    def to_dict(self) -> dict:
        return asdict(self)


def chain_mask(anchors_q: torch.Tensor, depths_q: torch.Tensor, anchors_k: torch.Tensor,
               depths_k: torch.Tensor) -> torch.Tensor:
    """Which key each query may attend to (spec §2.3): element (a_q, d_q) sees (a_k, d_k) iff
    (d_k = 0 and a_k <= a_q) or (a_k = a_q and d_k <= d_q): the verified causal context plus its own chain.
    Element (a, d) sits at position a + d; depth 0 is the ordinary EAGLE element."""
    real = (depths_k[None, :] == 0) & (anchors_k[None, :] <= anchors_q[:, None])
    chain = (anchors_k[None, :] == anchors_q[:, None]) & (depths_k[None, :] <= depths_q[:, None])
    return real | chain


class RMSNorm(nn.Module):
    def __init__(self, size: int, eps: float):
        super().__init__()
        self.weight, self.eps = nn.Parameter(torch.ones(size)), eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)


def rotate(x: torch.Tensor, positions: torch.Tensor, theta: float) -> torch.Tensor:
    """Rotary position embedding (Llama's half-split form) of x (heads, n, head_dim) at `positions` (n,)."""
    half = x.shape[-1] // 2
    freqs = theta ** (-torch.arange(half, dtype=torch.float32, device=x.device) / half)
    angles = positions.float()[:, None] * freqs[None, :]
    cos, sin = torch.cat([angles.cos()] * 2, -1), torch.cat([angles.sin()] * 2, -1)
    rotated = torch.cat([-x[..., half:], x[..., :half]], -1)
    return x * cos + rotated * sin


class DraftLayer(nn.Module):
    """A Llama decoder layer; the first one reads concat(norm(embedding), norm(hidden)) (EAGLE-3 midlayer)."""

    def __init__(self, cfg: DrafterConfig, first: bool):
        super().__init__()
        h, self.first, self.heads, self.theta = cfg.hidden_size, first, cfg.num_heads, cfg.rope_theta
        width = 2 * h if first else h
        self.input_norm = RMSNorm(h, cfg.rms_eps)
        self.embed_norm = RMSNorm(h, cfg.rms_eps) if first else None
        self.q, self.k, self.v = (nn.Linear(width, h, bias=False) for _ in range(3))
        self.o = nn.Linear(h, h, bias=False)
        self.post_norm = RMSNorm(h, cfg.rms_eps)
        self.gate, self.up = nn.Linear(h, cfg.intermediate_size, bias=False), nn.Linear(h, cfg.intermediate_size, bias=False)
        self.down = nn.Linear(cfg.intermediate_size, h, bias=False)

    def forward(self, x: torch.Tensor, embeddings: torch.Tensor, positions: torch.Tensor, mask: torch.Tensor,
                past: tuple[torch.Tensor, torch.Tensor] | None) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        """x, embeddings (n, H); mask (n, past + n) bool; returns the new residual stream and this call's keys and values."""
        a = torch.cat([self.embed_norm(embeddings), self.input_norm(x)], -1) if self.first else self.input_norm(x)
        n, hd = x.shape[0], x.shape[1] // self.heads
        q, k, v = (proj(a).view(n, self.heads, hd).transpose(0, 1) for proj in (self.q, self.k, self.v))
        q, k = rotate(q, positions, self.theta), rotate(k, positions, self.theta)
        keys, values = (k, v) if past is None else (torch.cat([past[0], k], 1), torch.cat([past[1], v], 1))
        attended = F.scaled_dot_product_attention(q[None], keys[None], values[None], attn_mask=mask[None, None])[0]
        x = x + self.o(attended.transpose(0, 1).reshape(n, -1))
        m = self.post_norm(x)
        return x + self.down(F.silu(self.gate(m)) * self.up(m)), (k, v)


class Drafter(nn.Module):
    """fc + decoder layers + norm + the target's head rows of the draft vocabulary (see module docstring)."""

    def __init__(self, cfg: DrafterConfig, embedding: torch.Tensor, head_rows: torch.Tensor, draft_to_target: torch.Tensor):
        super().__init__()
        if head_rows.shape != (cfg.draft_vocab, cfg.hidden_size) or draft_to_target.shape != (cfg.draft_vocab,):
            raise ProceedingsError(f"head rows {tuple(head_rows.shape)} and draft map {tuple(draft_to_target.shape)} "
                                   f"do not fit V_d={cfg.draft_vocab}, H={cfg.hidden_size}")
        self.cfg = cfg
        h = cfg.hidden_size
        self.fc = nn.Linear(len(cfg.feature_layers) * h, h, bias=False)
        self.layers = nn.ModuleList(DraftLayer(cfg, first=i == 0) for i in range(cfg.layers))
        self.norm = RMSNorm(h, cfg.rms_eps)
        self.head = nn.Parameter(head_rows.detach().clone(), requires_grad=False)  # frozen, V_d x H
        if cfg.method == "peagle":
            self.mask_hidden = nn.Parameter(torch.randn(len(cfg.feature_layers) * h) * 0.02)
            self.mask_embedding = nn.Parameter(torch.randn(h) * 0.02)
        self.register_buffer("embedding", embedding.detach(), persistent=False)  # the target's, shared storage
        self.register_buffer("draft_to_target", draft_to_target.long().clone())

    @property
    def parallel(self) -> bool:
        return self.cfg.method == "peagle"

    def embed(self, tokens: torch.Tensor) -> torch.Tensor:
        return F.embedding(tokens, self.embedding)

    def forward(self, hidden: torch.Tensor, embeddings: torch.Tensor, positions: torch.Tensor, mask: torch.Tensor,
                past: list | None = None) -> tuple[torch.Tensor, list]:
        """Residual stream after the last layer (n, H) and each layer's new keys/values. `hidden` is in fc space
        (fc(features), fc(mask_hidden), or an earlier output for EAGLE-3's chain)."""
        new_kv = []
        x = hidden
        for i, layer in enumerate(self.layers):
            x, kv = layer(x, embeddings, positions, mask, None if past is None else past[i])
            new_kv.append(kv)
        return x, new_kv

    def logits(self, x: torch.Tensor) -> torch.Tensor:
        """Draft-vocabulary logits (n, V_d) from the residual stream."""
        return self.norm(x) @ self.head.T

    def mask_inputs(self, n: int) -> tuple[torch.Tensor, torch.Tensor]:
        """fc(mask_hidden) and the mask embedding for n parallel positions."""
        return self.fc(self.mask_hidden).expand(n, -1), self.mask_embedding.expand(n, -1)

    def trainable_parameters(self) -> list[nn.Parameter]:
        return [p for p in self.parameters() if p.requires_grad]

    def num_trainable(self) -> int:
        return sum(p.numel() for p in self.trainable_parameters())


def init_drafter(target, method: str, layers: int, k_train: int, draft_to_target: torch.Tensor,
                 feature_layers: tuple[int, ...] | None = None, seed: int = 0) -> Drafter:
    """A fresh drafter for a Hugging Face Llama-family target: its embedding, its head rows of the draft
    vocabulary, its width; features from (2, L//2, L-3) unless given (spec §2.2)."""
    from proceedings.peagle.target import default_feature_layers, target_hash

    config = target.config
    features = feature_layers or default_feature_layers(config.num_hidden_layers)
    if max(features) > config.num_hidden_layers or min(features) < 0:
        raise ProceedingsError(f"feature layers {features} do not exist in a {config.num_hidden_layers}-layer target")
    cfg = DrafterConfig(method=method, hidden_size=config.hidden_size, num_heads=config.num_attention_heads,
                        intermediate_size=config.intermediate_size, layers=layers, feature_layers=tuple(features),
                        target_vocab=config.vocab_size, draft_vocab=len(draft_to_target), k_train=k_train,
                        rope_theta=float(getattr(config, "rope_theta", None) or
                                         (getattr(config, "rope_parameters", None) or {}).get("rope_theta", 10000.0)),
                        rms_eps=config.rms_norm_eps, target_hash=target_hash(target))
    torch.manual_seed(seed)
    head = target.get_output_embeddings().weight
    drafter = Drafter(cfg, target.get_input_embeddings().weight, head[draft_to_target], draft_to_target)
    for layer in drafter.layers:  # small output projections: the residual stream starts as fc(features)
        for proj in (layer.o, layer.down):
            nn.init.normal_(proj.weight, std=0.02 / math.sqrt(2 * cfg.layers))
    return drafter
