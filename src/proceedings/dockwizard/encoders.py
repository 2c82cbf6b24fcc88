"""The multimodal encoder (paper contribution 1): five conditions -> tokens of one width d.

- function text, ligand description: frozen MiniLM-L6 token states (precomputed, `text_states`),
  each through its own linear adapter;
- docking text: one MiniLM sentence embedding per stated interaction, plus the embedding of the
  pocket slot the sentence names ("position A253" -> slot index), so local constraints point at the
  positions they constrain [inferred: the paper's docking-text encoder is not specified];
- ligand SMILES: a character transformer, plus one Morgan-fingerprint MLP token;
- ligand 3D: a distance-aware transformer over heavy atoms (attention biased by radial basis
  features of pairwise distances: SE(3)-invariant).
Each modality is tagged with a learned modality embedding. `alignment_loss` is the InfoNCE term that
pulls pooled modalities of the same sample together (spec §2.1, weight 0.1, temperature 0.07).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

MODALITIES = ("function", "docking", "description", "smiles", "ligand3d")
SMILES_VOCAB = sorted(set("#%()+-./0123456789=@ABCDEFGHIKLMNOPRSTVWXYZ[\\]abcdefghiklmnoprstuy"))
ELEMENTS = ("C", "N", "O", "S", "P", "F", "CL", "BR", "I")
TEXT_WIDTH = 384  # MiniLM-L6 hidden size
FINGERPRINT_BITS = 1024
RBF_CENTRES = 16


def smiles_ids(smiles: str, max_len: int = 96) -> list[int]:
    """Character ids (0 = padding, 1 = unknown character)."""
    index = {c: i + 2 for i, c in enumerate(SMILES_VOCAB)}
    return [index.get(c, 1) for c in smiles[:max_len]]


def element_ids(elements: list[str]) -> list[int]:
    return [ELEMENTS.index(e) + 1 if e in ELEMENTS else len(ELEMENTS) + 1 for e in elements]


class DistanceAwareLayer(nn.Module):
    """Self-attention whose logits get a learned bias from RBF features of pairwise distances."""

    def __init__(self, d: int, heads: int):
        super().__init__()
        self.heads = heads
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.rbf_bias = nn.Linear(RBF_CENTRES, heads)
        self.ff = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))
        self.norm = nn.LayerNorm(d)

    def forward(self, h, distances, pad):  # h (B, N, d), distances (B, N, N), pad (B, N) True = padding
        centres = torch.linspace(0.0, 12.0, RBF_CENTRES, device=h.device)
        rbf = torch.exp(-((distances[..., None] - centres) ** 2) / 2.0)  # (B, N, N, R)
        bias = self.rbf_bias(rbf).permute(0, 3, 1, 2)  # (B, heads, N, N)
        bias = bias.masked_fill(pad[:, None, None, :], float("-inf")).flatten(0, 1)
        x = self.norm(h)
        h = h + self.attn(x, x, x, attn_mask=bias, need_weights=False)[0]
        return h + self.ff(h)


class ConditionEncoder(nn.Module):
    """Encodes a batch of conditions into (tokens, modality ids, padding mask, pooled per modality)."""

    def __init__(self, d: int, layers: int, heads: int, max_slots: int):
        super().__init__()
        self.function = nn.Linear(TEXT_WIDTH, d)
        self.description = nn.Linear(TEXT_WIDTH, d)
        self.docking = nn.Linear(TEXT_WIDTH, d)
        self.slot = nn.Embedding(max_slots + 1, d)  # slot 0 = the sentence names no pocket position
        self.smiles_embed = nn.Embedding(len(SMILES_VOCAB) + 2, d, padding_idx=0)
        self.smiles_pos = nn.Embedding(128, d)
        layer = nn.TransformerEncoderLayer(d, heads, 2 * d, dropout=0.0, batch_first=True, norm_first=True)
        self.smiles = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.fingerprint = nn.Sequential(nn.Linear(FINGERPRINT_BITS, d), nn.GELU(), nn.Linear(d, d))
        self.atom_embed = nn.Embedding(len(ELEMENTS) + 2, d, padding_idx=0)
        self.ligand3d = nn.ModuleList(DistanceAwareLayer(d, heads) for _ in range(layers))
        self.modality = nn.Embedding(len(MODALITIES), d)

    def forward(self, batch: dict, use: tuple[str, ...] = MODALITIES):
        parts = []  # (tokens (B, n, d), pad (B, n), modality index)
        if "function" in use:
            parts.append((self.function(batch["function"]), batch["function_pad"], 0))
        if "docking" in use:
            parts.append((self.docking(batch["docking"]) + self.slot(batch["docking_slot"]), batch["docking_pad"], 1))
        if "description" in use:
            parts.append((self.description(batch["description"]), batch["description_pad"], 2))
        if "smiles" in use:
            ids, pad = batch["smiles"], batch["smiles_pad"]
            h = self.smiles(self.smiles_embed(ids) + self.smiles_pos(torch.arange(ids.shape[1], device=ids.device)),
                            src_key_padding_mask=pad)
            fp = self.fingerprint(batch["fingerprint"])[:, None]
            parts.append((torch.cat([fp, h], 1), torch.cat([torch.zeros_like(pad[:, :1]), pad], 1), 3))
        if "ligand3d" in use:
            xyz, pad = batch["atom_xyz"], batch["atom_pad"]
            h = self.atom_embed(batch["atom_type"])
            distances = torch.cdist(xyz, xyz)
            for layer in self.ligand3d:
                h = layer(h, distances, pad)
            parts.append((h, pad, 4))
        tokens = torch.cat([t + self.modality.weight[m] for t, _, m in parts], 1)
        pad = torch.cat([p for _, p, _ in parts], 1)
        modality = torch.cat([torch.full(p.shape[1:], m, dtype=torch.long, device=p.device) for _, p, m in parts])
        pooled = {MODALITIES[m]: _mean(t, p) for t, p, m in parts}
        return tokens, modality, pad, pooled


def _mean(tokens, pad):
    keep = (~pad).float()[..., None]
    return (tokens * keep).sum(1) / keep.sum(1).clamp(min=1.0)


ALIGNED_PAIRS = (("docking", "ligand3d"), ("description", "smiles"))


def alignment_loss(pooled: dict, temperature: float = 0.07):
    """InfoNCE between pooled embeddings of two modalities of the same sample (spec §2.1)."""
    losses = []
    for a, b in ALIGNED_PAIRS:
        if a in pooled and b in pooled and pooled[a].shape[0] > 1:
            za, zb = F.normalize(pooled[a], dim=-1), F.normalize(pooled[b], dim=-1)
            logits = za @ zb.T / temperature
            target = torch.arange(len(za), device=za.device)
            losses.append((F.cross_entropy(logits, target) + F.cross_entropy(logits.T, target)) / 2)
    return torch.stack(losses).mean() if losses else torch.zeros(())
