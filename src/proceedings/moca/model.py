"""CompositionalDiT: a flow-matching transformer over components, local and cross blocks alternating.

Spec §2.2 (after PartCrafter and MoCA's project page): each component's L point tokens are embedded,
given a random component-ID embedding (N distinct IDs drawn from a pool of `max_components`, so the
model cannot rely on part order), and get L/σ compression tokens and one anchor packed from them by
cross-attention from learned queries. Blocks alternate: a *local* block attends inside each component,
a *cross* block across components with `MoCAttention` in the chosen mode (`full | moca | topk-drop |
local`: the arms differ only there). Conditioning (timestep, class, component count) enters every block
by adaLN-Zero (DiT). The output is the flow-matching velocity of the L tokens: xyz points, or (the `paper`
preset, spec §2.1 b) a frozen component VAE's latents, whose `distance` router then ranks by anchor tokens.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

from proceedings.core.errors import ProceedingsError
from proceedings.moca.attention import MODES, MoCAttention, check_shape, summary_tokens


@dataclass
class DiTConfig:
    points: int = 16  # L tokens per component: surface points, or the component VAE's latents (spec §2.1)
    channels: int = 3  # per token: 3 for xyz points, D_z for VAE latents (the `paper` preset)
    dim: int = 64
    heads: int = 4
    depth: int = 2  # number of (local, cross) block pairs
    attention: str = "moca"  # the cross block: full | moca | topk-drop | local
    k: int = 4  # MoCA top-k (issue 27)
    sigma: int = 8  # compression ratio: L/σ compression tokens per component
    router: str = "learned"
    router_bias: bool = True
    classes: list[str] = field(default_factory=lambda: ["chair"])
    max_components: int = 64  # the component-ID pool N_max (spec §2.2)
    mlp_ratio: int = 4

    def __post_init__(self) -> None:
        check_shape(self.points, self.k, self.sigma)
        if self.attention not in MODES:
            raise ProceedingsError(f"unknown attention '{self.attention}'; choose one of: {', '.join(MODES)}")


def timestep_embedding(t: torch.Tensor, dim: int) -> torch.Tensor:
    """Sinusoidal features of t in [0, 1], (B,) -> (B, dim)."""
    half = dim // 2
    freqs = torch.exp(-math.log(10_000) * torch.arange(half, device=t.device) / half)
    angles = 1000 * t[:, None] * freqs[None]
    return torch.cat([angles.cos(), angles.sin()], -1)


class Block(nn.Module):
    """Pre-norm attention + MLP, each modulated (shift, scale) and gated by adaLN-Zero from the condition."""

    def __init__(self, cfg: DiTConfig, mode: str):
        super().__init__()
        d = cfg.dim
        self.norm1 = nn.LayerNorm(d, elementwise_affine=False)
        self.norm2 = nn.LayerNorm(d, elementwise_affine=False)
        self.attn = MoCAttention(d, cfg.heads, cfg.points, cfg.k, cfg.sigma, mode, cfg.router, cfg.router_bias)
        self.mlp = nn.Sequential(nn.Linear(d, cfg.mlp_ratio * d), nn.GELU(approximate="tanh"),
                                 nn.Linear(cfg.mlp_ratio * d, d))
        self.modulation = nn.Linear(d, 6 * d)
        nn.init.zeros_(self.modulation.weight)  # adaLN-Zero: every block starts as the identity
        nn.init.zeros_(self.modulation.bias)

    def forward(self, x, cond, valid, positions):
        shift1, scale1, gate1, shift2, scale2, gate2 = self.modulation(cond)[:, None, None].chunk(6, -1)
        x = x + gate1 * self.attn(self.norm1(x) * (1 + scale1) + shift1, valid, positions)
        return x + gate2 * self.mlp(self.norm2(x) * (1 + scale2) + shift2)


class CompositionalDiT(nn.Module):
    """velocity = model(x_t (B, N, L, C), t (B,), class (B,), ids (B, N), valid (B, N)) -> (B, N, L, C), C = channels."""

    def __init__(self, cfg: DiTConfig):
        super().__init__()
        self.cfg = cfg
        d = cfg.dim
        self.point_in = nn.Linear(cfg.channels, d)
        self.ids = nn.Embedding(cfg.max_components, d)
        self.pack_queries = nn.Parameter(torch.randn(summary_tokens(cfg.points, cfg.sigma), d) * 0.02)
        self.pack_kv = nn.Linear(d, 2 * d)
        self.time = nn.Sequential(nn.Linear(d, d), nn.SiLU(), nn.Linear(d, d))
        self.label = nn.Embedding(len(cfg.classes) + 1, d)  # the last row is the CFG "no class" label
        self.count = nn.Embedding(cfg.max_components + 1, d)
        self.blocks = nn.ModuleList(Block(cfg, mode) for _ in range(cfg.depth) for mode in ("local", cfg.attention))
        self.norm_out = nn.LayerNorm(d, elementwise_affine=False)
        self.out_modulation = nn.Linear(d, 2 * d)
        self.out = nn.Linear(d, cfg.channels)
        for layer in (self.out_modulation, self.out):
            nn.init.zeros_(layer.weight)
            nn.init.zeros_(layer.bias)

    @property
    def null_class(self) -> int:
        return len(self.cfg.classes)

    def pack(self, tokens: torch.Tensor) -> torch.Tensor:
        """Compression tokens + anchor per component by cross-attention from learned queries, (B, N, c, d)."""
        b, n, l, d = tokens.shape
        h = self.cfg.heads
        key, value = self.pack_kv(tokens).view(b * n, l, 2, h, d // h).unbind(2)
        query = self.pack_queries.view(1, -1, h, d // h).expand(b * n, -1, h, d // h)
        packed = F.scaled_dot_product_attention(query.transpose(1, 2), key.transpose(1, 2), value.transpose(1, 2))
        return self.pack_queries + packed.transpose(1, 2).reshape(b, n, -1, d)

    def forward(self, x, t, label, ids, valid=None):
        b, n, l, c = x.shape
        if (l, c) != (self.cfg.points, self.cfg.channels):
            raise ProceedingsError(f"the model takes L={self.cfg.points} tokens of {self.cfg.channels} channels per "
                                   f"component, got {l} of {c}")
        if n > self.cfg.max_components:
            raise ProceedingsError(f"{n} components exceed max_components={self.cfg.max_components}")
        if valid is None:
            valid = torch.ones(b, n, dtype=torch.bool, device=x.device)
        tokens = self.point_in(x) + self.ids(ids)[:, :, None]  # (B, N, L, d)
        h = torch.cat([tokens, self.pack(tokens)], 2)  # (B, N, T, d), T = L + L/σ + 1
        counts = valid.sum(1).clamp(max=self.cfg.max_components)
        # DiT's adaLN input: SiLU(c), so the modulations are non-linear in (t, class, N) jointly
        cond = F.silu(self.time(timestep_embedding(t, self.cfg.dim)) + self.label(label) + self.count(counts))
        positions = x.mean(2) if self.cfg.channels == 3 else None  # centroids for the `distance` router
        for block in self.blocks:
            h = block(h, cond, valid, positions)
        shift, scale = self.out_modulation(cond)[:, None, None].chunk(2, -1)
        return self.out(self.norm_out(h[:, :, :l]) * (1 + scale) + shift)

    def save_pretrained(self, path: Path | str) -> Path:
        """safetensors weights + config.json in a directory."""
        from safetensors.torch import save_file

        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        save_file({k: v.contiguous() for k, v in self.state_dict().items()}, path / "model.safetensors")
        (path / "config.json").write_text(json.dumps(asdict(self.cfg), indent=2) + "\n")
        return path

    @classmethod
    def from_pretrained(cls, path: Path | str) -> "CompositionalDiT":
        from safetensors.torch import load_file

        path = Path(path)
        if not (path / "config.json").exists() or not (path / "model.safetensors").exists():
            raise ProceedingsError(f"'{path}' is not a saved CompositionalDiT (needs config.json and model.safetensors)")
        model = cls(DiTConfig(**json.loads((path / "config.json").read_text())))
        load_weights(model, load_file(path / "model.safetensors"), str(path))
        return model


def load_weights(model: nn.Module, state: dict, source: str) -> None:
    """Load a state dict, or one line naming what does not match."""
    mine = model.state_dict()
    missing, extra = sorted(set(mine) - set(state)), sorted(set(state) - set(mine))
    wrong = [k for k in mine if k in state and state[k].shape != mine[k].shape]
    if missing or extra or wrong:
        detail = (f"missing {missing[:3]}" if missing else f"unexpected {extra[:3]}" if extra
                  else f"shape of {wrong[0]} is {tuple(state[wrong[0]].shape)}, expected {tuple(mine[wrong[0]].shape)}")
        raise ProceedingsError(f"checkpoint '{source}' does not match this model configuration: {detail}")
    model.load_state_dict(state)


def parameter_count(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
