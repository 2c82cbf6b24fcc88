"""The NIV network: point encoder, transformer trunk with adaLN conditioning, displacement head (spec §2.2).

Each point of a glyph (x, y, on-curve flag, position in its contour, directions to its neighbours;
phantom points flagged −1) is encoded by an MLP and given a sinusoidal encoding of its index; the transformer attends over the
glyph's points, each sub-layer's LayerNorm modulated by the axis condition (adaLN: x̂(1 + γ) + β with
γ, β = Linear(c)); the head maps every point to its displacement (dx, dy) at the requested location.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
from torch import nn

from proceedings.core.errors import ProceedingsError
from proceedings.niv.property_embedding import AddAll, PropertyEmbedding
from proceedings.niv.variations import AXES

CONFIG_FILE, WEIGHTS_FILE = "config.json", "model.safetensors"


def default_model_dir(scale: str = "small") -> Path:
    """Where `reproduce niv --scale SCALE` saves its NIV model; `convert` uses the small one by default."""
    from proceedings.niv.data import cache_root

    return cache_root() / "models" / scale / "niv"


@dataclass
class NIVConfig:
    d_model: int = 256  # official default
    n_layers: int = 6
    n_heads: int = 8
    ff_mult: int = 4
    dropout: float = 0.1
    point_hidden: int = 128
    max_points: int = 504
    conditioning: str = "property"  # "property" (Property Embedding) or "addall" (the ablation)
    order: int = 2  # Property Embedding order; the official config uses 1
    n_features: int = 8  # see data.point_features


def sinusoidal(n: int, dim: int) -> torch.Tensor:
    position = torch.arange(n, dtype=torch.float32)[:, None]
    freq = torch.exp(torch.arange(0, dim, 2, dtype=torch.float32) * (-math.log(10000.0) / dim))
    table = torch.zeros(n, dim)
    table[:, 0::2], table[:, 1::2] = torch.sin(position * freq), torch.cos(position * freq)
    return table


class AdaLNBlock(nn.Module):
    """Pre-norm transformer layer whose two LayerNorms are modulated by the condition."""

    def __init__(self, cfg: NIVConfig):
        super().__init__()
        d = cfg.d_model
        self.norm1 = nn.LayerNorm(d, elementwise_affine=False)
        self.norm2 = nn.LayerNorm(d, elementwise_affine=False)
        self.attn = nn.MultiheadAttention(d, cfg.n_heads, dropout=cfg.dropout, batch_first=True)
        self.ff = nn.Sequential(nn.Linear(d, cfg.ff_mult * d), nn.GELU(), nn.Dropout(cfg.dropout),
                                nn.Linear(cfg.ff_mult * d, d))
        self.modulation = nn.Linear(d, 4 * d)  # γ1, β1, γ2, β2
        nn.init.zeros_(self.modulation.weight)
        nn.init.zeros_(self.modulation.bias)
        self.drop = nn.Dropout(cfg.dropout)

    def forward(self, x: torch.Tensor, cond: torch.Tensor, padding: torch.Tensor) -> torch.Tensor:
        g1, b1, g2, b2 = self.modulation(cond)[:, None, :].chunk(4, dim=-1)  # each (B, 1, d)
        h = self.norm1(x) * (1 + g1) + b1
        x = x + self.drop(self.attn(h, h, h, key_padding_mask=padding, need_weights=False)[0])
        h = self.norm2(x) * (1 + g2) + b2
        return x + self.drop(self.ff(h))


class NIV(nn.Module):
    def __init__(self, config: NIVConfig):
        super().__init__()
        self.config = cfg = config
        d = cfg.d_model
        self.point_encoder = nn.Sequential(nn.Linear(cfg.n_features, cfg.point_hidden), nn.GELU(),
                                           nn.Linear(cfg.point_hidden, d))
        self.register_buffer("position", sinusoidal(cfg.max_points + 4, d), persistent=False)
        if cfg.conditioning == "property":
            self.condition = PropertyEmbedding(len(AXES), d, cfg.order)
        elif cfg.conditioning == "addall":
            self.condition = AddAll(len(AXES), d)
        else:
            raise ProceedingsError(f"unknown conditioning '{cfg.conditioning}'; choose 'property' or 'addall'")
        self.condition_mlp = nn.Sequential(nn.Linear(d, d), nn.SiLU(), nn.Linear(d, d))
        self.blocks = nn.ModuleList(AdaLNBlock(cfg) for _ in range(cfg.n_layers))
        self.final_norm = nn.LayerNorm(d, elementwise_affine=False)
        self.head = nn.Sequential(nn.Linear(d, d), nn.GELU(), nn.Linear(d, 2))

    def forward(self, features: torch.Tensor, mask: torch.Tensor, location: torch.Tensor) -> torch.Tensor:
        """features (B, P, 8), mask (B, P) True for real points, location (B, A) -> (B, P, 2)."""
        x = self.point_encoder(features) + self.position[: features.shape[1]]
        cond = self.condition_mlp(self.condition(location))
        for block in self.blocks:
            x = block(x, cond, ~mask)
        return self.head(self.final_norm(x)) * mask[..., None]

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def save_pretrained(self, directory: Path | str) -> Path:
        from safetensors.torch import save_file

        from proceedings.core.runtime import atomic_write_text

        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        atomic_write_text(directory / CONFIG_FILE, json.dumps(asdict(self.config), indent=1))
        tmp = directory / (WEIGHTS_FILE + ".tmp")
        save_file({k: v.contiguous() for k, v in self.state_dict().items()}, str(tmp))
        tmp.replace(directory / WEIGHTS_FILE)
        return directory

    @classmethod
    def from_pretrained(cls, directory: Path | str) -> "NIV":
        from safetensors.torch import load_file

        directory = Path(directory)
        if not (directory / CONFIG_FILE).is_file() or not (directory / WEIGHTS_FILE).is_file():
            raise ProceedingsError(f"'{directory}' is not a NIV model folder (needs {CONFIG_FILE} and {WEIGHTS_FILE}); "
                                   "train one with `proceedings niv train`")
        model = cls(NIVConfig(**json.loads((directory / CONFIG_FILE).read_text())))
        model.load_state_dict(load_file(str(directory / WEIGHTS_FILE)))
        return model.eval()
