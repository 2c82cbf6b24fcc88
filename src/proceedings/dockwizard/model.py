"""DockWizard-lite: encoder -> router -> decoder, generating the pocket sequence slot by slot.

The decoder (paper contribution 3) is an autoregressive transformer over the 20 amino acids of the
pocket's slots (in residue order). Prefix guidance: the router's global memory is prepended as P
soft-prompt tokens. Full-memory injection: every layer has a gated cross-attention (Flamingo-style,
tanh gate initialised at 0) to all condition tokens, its keys biased by the layer's learned
weighting of the three roles. Saved and loaded as config JSON + safetensors. At full scale
(`decoder="plm"`) the decoder is a Hugging Face protein LM with LoRA, loaded from `plm_path`
(`plm_decoder.py`), with the same prefix guidance and injection; tiny and small train it from scratch.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

from proceedings.core.errors import ProceedingsError
from proceedings.dockwizard.encoders import MODALITIES, ConditionEncoder, alignment_loss
from proceedings.dockwizard.router import ROLES, Router
from proceedings.dockwizard.structures import AMINO_ACIDS

BOS = len(AMINO_ACIDS)  # token 20 starts every pocket
FUNCTION_ONLY = ("function", "description", "smiles")  # the text-only baseline's conditions (issue)


@dataclass
class ModelConfig:
    d: int = 64
    layers: int = 2
    heads: int = 4
    prefix: int = 8  # P prefix tokens from the global memory (spec §2.3)
    max_slots: int = 48  # longest pocket
    router: bool = True  # False = the "no router" ablation (one shared memory)
    conditions: tuple[str, ...] = MODALITIES  # FUNCTION_ONLY = the function-only baseline
    alignment_weight: float = 0.1  # spec §2.1
    balance_weight: float = 0.1
    decoder: str = "scratch"  # "plm": a Hugging Face protein LM with LoRA at plm_path (the paper scale)
    plm_path: str = ""


class MemoryInjection:
    """Full-memory injection: h + tanh(gate) * cross-attention(h -> memory), keys biased by the layer's learned
    weighting of the three roles. Flamingo: the gate starts at 0, so the decoder starts as if unconditioned."""

    def inject(self, h, memory, memory_bias):  # h (B, T, d); memory (B, N, d_memory); memory_bias (B, N, roles)
        x = self.norm2(h)
        role = torch.softmax(self.role_logits, 0)
        bias = torch.log((memory_bias * role).sum(-1).clamp(min=1e-6))
        mask = bias[:, None, None, :].expand(-1, self.heads, h.shape[1], -1).flatten(0, 1)
        return h + torch.tanh(self.gate) * self.cross_attn(x, memory, memory, attn_mask=mask, need_weights=False)[0]


class GatedCrossAttention(MemoryInjection, nn.Module):
    """The injection alone, for a pretrained decoder's blocks (`plm_decoder.py`): width d, memory width d_memory."""

    def __init__(self, d: int, heads: int, d_memory: int):
        super().__init__()
        self.heads = heads
        self.norm2 = nn.LayerNorm(d)
        self.cross_attn = nn.MultiheadAttention(d, heads, batch_first=True, kdim=d_memory, vdim=d_memory)
        self.gate = nn.Parameter(torch.zeros(1))
        self.role_logits = nn.Parameter(torch.zeros(len(ROLES)))


class GatedCrossAttentionLayer(MemoryInjection, nn.Module):
    """Causal self-attention, then tanh-gated cross-attention to the role-weighted memory, then MLP."""

    def __init__(self, d: int, heads: int):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2, self.norm3 = nn.LayerNorm(d), nn.LayerNorm(d), nn.LayerNorm(d)
        self.self_attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.cross_attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.gate = nn.Parameter(torch.zeros(1))  # Flamingo: tanh(0) = 0 at initialisation
        self.role_logits = nn.Parameter(torch.zeros(len(ROLES)))
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, h, memory, memory_bias):  # h (B, T, d); memory (B, N, d); memory_bias (B, N, roles)
        T = h.shape[1]
        causal = torch.triu(torch.full((T, T), float("-inf"), device=h.device), diagonal=1)
        x = self.norm1(h)
        h = h + self.self_attn(x, x, x, attn_mask=causal, need_weights=False)[0]
        h = self.inject(h, memory, memory_bias)
        return h + self.ff(self.norm3(h))


class DockWizard(nn.Module):
    def __init__(self, config: ModelConfig):
        super().__init__()
        self.config = config
        self.encoder = ConditionEncoder(config.d, config.layers, config.heads, config.max_slots)
        self.router = Router(config.d, config.heads, config.prefix, MODALITIES, enabled=config.router)
        if config.decoder == "plm":
            from proceedings.dockwizard.plm_decoder import ProteinLMDecoder, load_protein_lm

            self.plm = ProteinLMDecoder(*load_protein_lm(config.plm_path), config.d, config.heads, config.prefix)
        elif config.decoder == "scratch":
            self.token = nn.Embedding(len(AMINO_ACIDS) + 1, config.d)
            self.slot = nn.Embedding(config.max_slots + 1, config.d)
            self.layers = nn.ModuleList(GatedCrossAttentionLayer(config.d, config.heads) for _ in range(config.layers))
            self.norm = nn.LayerNorm(config.d)
            self.head = nn.Linear(config.d, len(AMINO_ACIDS))
        else:
            raise ProceedingsError(f"unknown decoder '{config.decoder}' (field 'decoder'); use 'scratch' or 'plm'")

    def condition(self, batch: dict):
        """Condition tokens, their routing weights masked to padding, the prefix and auxiliary losses."""
        tokens, modality, pad, pooled = self.encoder(batch, use=self.config.conditions)
        prefix, g, balance = self.router(tokens, modality, pad)
        g = g.masked_fill(pad[..., None], 0.0)
        aux = self.config.alignment_weight * alignment_loss(pooled) + self.config.balance_weight * balance
        return tokens, g, prefix, aux

    def logits(self, batch: dict, inputs, memory):  # inputs (B, T) token ids -> (B, T, 20)
        tokens, g, prefix = memory
        T = inputs.shape[1]
        h = self.token(inputs) + self.slot(torch.arange(1, T + 1, device=inputs.device))
        h = torch.cat([prefix, h], 1)
        for layer in self.layers:
            h = layer(h, tokens, g)
        return self.head(self.norm(h[:, prefix.shape[1]:]))

    def loss(self, batch: dict):
        """Next-token cross-entropy over pocket slots + alignment + load balancing (spec §2.3)."""
        tokens, g, prefix, aux = self.condition(batch)
        target = batch["target"]  # (B, L), -100 past each pocket's end
        if self.config.decoder == "plm":
            return self.plm.loss(target, (tokens, g, prefix)) + aux
        inputs = torch.cat([torch.full_like(target[:, :1], BOS), target[:, :-1].clamp(min=0)], 1)
        logits = self.logits(batch, inputs, (tokens, g, prefix))
        return F.cross_entropy(logits.flatten(0, 1), target.flatten(), ignore_index=-100) + aux

    @torch.no_grad()
    def generate(self, batch: dict, lengths: list[int], temperature: float = 0.8, top_p: float = 0.9,
                 generator: torch.Generator | None = None) -> list[str]:
        """Nucleus sampling of one pocket per condition in the batch, `lengths[i]` residues each."""
        tokens, g, prefix, _ = self.condition(batch)
        if self.config.decoder == "plm":
            slots = self.plm.generate(lengths, (tokens, g, prefix),
                                      lambda logits: _nucleus(logits / temperature, top_p, generator))
            return ["".join(AMINO_ACIDS[t] for t in row[:n].tolist()) for row, n in zip(slots, lengths)]
        B, L = len(lengths), max(lengths)
        out = torch.full((B, 1), BOS, dtype=torch.long)
        for _ in range(L):
            logits = self.logits(batch, out, (tokens, g, prefix))[:, -1] / temperature
            out = torch.cat([out, _nucleus(logits, top_p, generator)[:, None]], 1)
        return ["".join(AMINO_ACIDS[t] for t in row[1:n + 1].tolist()) for row, n in zip(out, lengths)]

    def save(self, directory: Path | str) -> Path:
        from safetensors.torch import save_file

        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "config.json").write_text(json.dumps(asdict(self.config), indent=1))
        pretrained = self.pretrained_keys()
        save_file({k: v.contiguous() for k, v in self.state_dict().items() if k not in pretrained},
                  str(directory / "model.safetensors"))
        return directory

    def pretrained_keys(self) -> set[str]:
        """The protein LM's frozen weights (decoder "plm"): loaded from plm_path, never saved."""
        if self.config.decoder != "plm":
            return set()
        return {f"plm.lm.{name}" for name, p in self.plm.lm.named_parameters(remove_duplicate=False)
                if not p.requires_grad}

    @classmethod
    def from_pretrained(cls, directory: Path | str) -> "DockWizard":
        from safetensors.torch import load_file

        directory = Path(directory)
        if not (directory / "config.json").is_file():
            raise ProceedingsError(f"model directory '{directory}' has no config.json; train one with "
                                   "`proceedings dockwizard train`")
        raw = json.loads((directory / "config.json").read_text())
        model = cls(ModelConfig(**{**raw, "conditions": tuple(raw["conditions"])}))
        missing, unexpected = model.load_state_dict(load_file(str(directory / "model.safetensors")), strict=False)
        if unexpected or set(missing) - model.pretrained_keys():
            raise ProceedingsError(f"'{directory}' does not hold this model's weights: missing "
                                   f"{sorted(set(missing) - model.pretrained_keys())[:3]}, unexpected {unexpected[:3]}")
        return model.eval()


def _nucleus(logits, top_p: float, generator):
    probs = torch.softmax(logits, -1)
    sorted_probs, order = probs.sort(-1, descending=True)
    keep = sorted_probs.cumsum(-1) - sorted_probs < top_p
    sorted_probs = sorted_probs * keep
    choice = torch.multinomial(sorted_probs / sorted_probs.sum(-1, keepdim=True), 1, generator=generator)
    return order.gather(-1, choice)[:, 0]


def parameter_count(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
