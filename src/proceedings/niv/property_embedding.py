"""Property Embedding: the axis-location condition, with explicit interaction terms (spec §2.2).

One learned vector E[S, σ] per axis subset S (|S| ≤ order) and sign pattern σ ∈ {−1, +1}^|S|. For a
normalised location v the condition is

    c(v) = Σ_{S, σ} ( Π_{a∈S} relu(σ_a · v_a) ) · E[S, σ]  /  #terms,

i.e. each term is scaled by Π|v_a| when the signs match and vanishes otherwise. Order 1 has one vector
per (axis, sign); order 2 adds the pair terms scaled by |v_a · v_b|: exactly the bilinear interactions a
two-axis gvar tuple can express. c is zero at the default location, a pair term vanishes when either of
its axes is at 0, and the terms do not depend on the order axes are given in.

`AddAll` is the ablation without it ("addall" in the official code): Σ_a (E_a + MLP(v_a)), one axis
at a time, so interactions can only arise later in the network.
"""

from __future__ import annotations

import itertools

import torch
from torch import nn


class PropertyEmbedding(nn.Module):
    def __init__(self, n_axes: int, dim: int, order: int = 2):
        super().__init__()
        terms = [(subset, signs) for k in range(1, order + 1) for subset in itertools.combinations(range(n_axes), k)
                 for signs in itertools.product((-1.0, 1.0), repeat=k)]
        self.n_terms = len(terms)
        mask = torch.zeros(self.n_terms, n_axes)  # 1 where the axis belongs to the term's subset
        sign = torch.zeros(self.n_terms, n_axes)
        for t, (subset, signs) in enumerate(terms):
            for axis, s in zip(subset, signs):
                mask[t, axis], sign[t, axis] = 1.0, s
        self.register_buffer("mask", mask)
        self.register_buffer("sign", sign)
        self.table = nn.Parameter(torch.randn(self.n_terms, dim) * 0.5)

    def weights(self, location: torch.Tensor) -> torch.Tensor:
        """(B, A) location -> (B, terms): Π_{a∈S} relu(σ_a v_a) per term."""
        matched = torch.relu(location[:, None, :] * self.sign)  # (B, T, A)
        factors = torch.where(self.mask.bool(), matched, torch.ones_like(matched))
        return factors.prod(dim=-1)

    def forward(self, location: torch.Tensor) -> torch.Tensor:
        return self.weights(location) @ self.table / self.n_terms  # (B, dim)


class AddAll(nn.Module):
    """Σ_a (E_a + MLP(v_a)): per-axis identity embedding plus a shared value MLP."""

    def __init__(self, n_axes: int, dim: int):
        super().__init__()
        self.axis = nn.Parameter(torch.randn(n_axes, dim) * 0.5)
        self.value = nn.Sequential(nn.Linear(1, dim), nn.SiLU(), nn.Linear(dim, dim))

    def forward(self, location: torch.Tensor) -> torch.Tensor:
        per_axis = self.axis[None] + self.value(location[..., None])  # (B, A, dim)
        return per_axis.sum(dim=1)
