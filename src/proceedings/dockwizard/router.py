"""The router (paper contribution 2): condition tokens -> role-specific memories by scope of action.

Spec §2.2 [inferred]. Each token t gets routing weights g_t = softmax(W_r h_t + b_modality) over three
roles: global (what the protein is and does), binding (which ligand, its chemistry) and local
(spatial and interaction constraints). The modality prior b starts as function text -> global,
ligand description/SMILES -> binding, docking text/3D -> local, and is learned.
- The global memory is Perceiver-pooled: 8 learned queries attend over all tokens with key bias
  log g_t[global]; it becomes the decoder's prefix (prefix guidance).
- The binding and local memories keep the tokens themselves (so a docking sentence still points at
  its pocket slot): a decoder layer attends to all tokens with key bias log(sum_m w_layer,m g_t[m]),
  its learned role weighting (full-memory injection).
A load-balancing term keeps every role in use. The "no router" ablation is the same module with
routing switched off: uniform weights, no role bias, one shared memory.
"""

from __future__ import annotations

import torch
from torch import nn

ROLES = ("global", "binding", "local")
PRIOR = {"function": 0, "docking": 2, "description": 1, "smiles": 1, "ligand3d": 2}  # modality -> role
PRIOR_STRENGTH = 2.0


class Router(nn.Module):
    def __init__(self, d: int, heads: int, prefix: int, modalities: tuple[str, ...], enabled: bool = True):
        super().__init__()
        self.enabled = enabled
        self.score = nn.Linear(d, len(ROLES))
        prior = torch.zeros(len(modalities), len(ROLES))
        for i, name in enumerate(modalities):
            prior[i, PRIOR[name]] = PRIOR_STRENGTH
        self.modality_bias = nn.Parameter(prior)
        self.queries = nn.Parameter(torch.randn(prefix, d) * 0.02)
        self.pool = nn.MultiheadAttention(d, heads, batch_first=True)
        self.heads = heads

    def weights(self, tokens, modality):  # (B, N, d), (N,) -> (B, N, roles)
        if not self.enabled:
            return torch.full((*tokens.shape[:2], len(ROLES)), 1.0 / len(ROLES), device=tokens.device)
        return torch.softmax(self.score(tokens) + self.modality_bias[modality], dim=-1)

    def forward(self, tokens, modality, pad):
        """(prefix (B, P, d), routing weights (B, N, roles), load-balancing loss)."""
        g = self.weights(tokens, modality)
        bias = torch.log(g[..., 0].clamp(min=1e-6)) if self.enabled else torch.zeros_like(g[..., 0])
        bias = bias.masked_fill(pad, float("-inf"))  # (B, N)
        mask = bias[:, None, None, :].expand(-1, self.heads, self.queries.shape[0], -1).flatten(0, 1)
        queries = self.queries.expand(tokens.shape[0], -1, -1)
        prefix = self.pool(queries, tokens, tokens, attn_mask=mask, need_weights=False)[0]
        keep = (~pad).float()[..., None]
        usage = (g * keep).sum((0, 1)) / keep.sum().clamp(min=1.0)  # mean routing mass per role
        balance = ((usage - 1.0 / len(ROLES)) ** 2).sum() if self.enabled else torch.zeros((), device=tokens.device)
        return prefix, g, balance
