"""The per-layer update rules of MEMIT, AlphaEdit and ROME: the math, nothing else (spec §2.1).

Shapes: K (d_ff, n) keys of the batch, R (d, n) value residuals to write, C (d_ff, d_ff) = C_0.
Every rule returns Delta W (d, d_ff) in the Linear orientation; all solves are in float64 and use
linear solves, never explicit inverses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch


def memit_delta(K: "torch.Tensor", R: "torch.Tensor", C: "torch.Tensor", lam: float) -> "torch.Tensor":
    """MEMIT: Delta W = R K^T (lambda C_0 + K K^T)^-1   (Meng et al. 2023, eq. 14)."""
    import torch

    K, R = K.double(), R.double()
    adjusted = torch.linalg.solve(lam * C + K @ K.T, K)  # (d_ff, n); the system is symmetric
    return R @ adjusted.T


def nullspace_projector(C: "torch.Tensor", threshold: float) -> "torch.Tensor":
    """AlphaEdit's P = U0 U0^T over the eigenvectors of C_0 with eigenvalue < threshold (Fang et al. 2025, §3)."""
    import torch

    eigenvalues, eigenvectors = torch.linalg.eigh(C.double())
    U0 = eigenvectors[:, eigenvalues < threshold]
    return U0 @ U0.T


def alphaedit_delta(K: "torch.Tensor", R: "torch.Tensor", P: "torch.Tensor", cache_c: "torch.Tensor",
                    alpha: float) -> "torch.Tensor":
    """AlphaEdit: Delta W = R K^T P ((K_p K_p^T + K K^T) P + alpha I)^-1.

    Written as AlphaEdit's code solves it: X = solve(P (K K^T + cache_c) + alpha I, P K R^T),
    Delta W = X^T; cache_c = K_p K_p^T holds the keys of all earlier edits of this stream.
    """
    import torch

    K, R = K.double(), R.double()
    eye = torch.eye(K.shape[0], dtype=torch.float64, device=K.device)
    X = torch.linalg.solve(P @ (K @ K.T + cache_c) + alpha * eye, P @ K @ R.T)  # (d_ff, d)
    return X.T


def rome_delta(K: "torch.Tensor", R: "torch.Tensor", C: "torch.Tensor") -> "torch.Tensor":
    """ROME's rank-one insertion: Delta W = R (C^-1 k)^T / ((C^-1 k)^T k), so W' k = W k + R exactly.

    ROME edits one fact (n = 1); it is MEMIT's single-key case with the key inserted exactly.
    """
    import torch

    k, r = K.double(), R.double()  # (d_ff, 1), (d, 1)
    u = torch.linalg.solve(C, k)  # (d_ff, 1)
    return r @ u.T / (u.T @ k)
