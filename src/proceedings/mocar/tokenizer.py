"""The motion tokenizer: a VAE over endpoint-normalised 0.5 s segments (abstract; spec §2.2).

Input: a segment's S points and headings in its start frame F_i (S x (x, y, cos Δθ, sin Δθ)). The
code z ∈ R^D decodes to the S points *and* the frame transition T_i = (dx, dy, dθ): dx, dy are the
last decoded point and dθ is read from a decoded (cos, sin) pair, so each code carries both the
local geometry and the move of the reference frame. Loss: L1 reconstruction plus a weak KL
β·KL(q(z|seg) || N(0, I)) (β ≈ 1e-3; β = 0 is an ablation).
"""

from __future__ import annotations

import torch
from torch import nn

from proceedings.mocar.frames import SEGMENT

SCALE_M = 5.0  # positions are divided by this before the networks see them


def segment_features(points: torch.Tensor, headings: torch.Tensor) -> torch.Tensor:
    """(..., S, 2) points and (..., S) relative headings -> (..., 4S) tokenizer input."""
    return torch.cat((points / SCALE_M, torch.cos(headings)[..., None], torch.sin(headings)[..., None]), dim=-1).flatten(-2)


class Tokenizer(nn.Module):
    def __init__(self, code_dim: int = 16, hidden: int = 128, segment: int = SEGMENT):
        super().__init__()
        self.code_dim, self.segment = code_dim, segment
        self.encoder = nn.Sequential(nn.Linear(4 * segment, hidden), nn.GELU(), nn.Linear(hidden, hidden), nn.GELU(),
                                     nn.Linear(hidden, 2 * code_dim))
        self.decoder = nn.Sequential(nn.Linear(code_dim, hidden), nn.GELU(), nn.Linear(hidden, hidden), nn.GELU(),
                                     nn.Linear(hidden, 2 * segment + 2))

    def encode(self, points: torch.Tensor, headings: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(μ, log σ²), each (..., D)."""
        mu, logvar = self.encoder(segment_features(points, headings)).chunk(2, dim=-1)
        return mu, logvar.clamp(-10.0, 6.0)

    def decode(self, z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Code (..., D) -> (points (..., S, 2) in the segment's start frame, transition (..., 3))."""
        out = self.decoder(z)
        points = out[..., :2 * self.segment].reshape(*z.shape[:-1], self.segment, 2) * SCALE_M
        dtheta = torch.atan2(out[..., -1], out[..., -2])
        return points, torch.cat((points[..., -1, :], dtheta[..., None]), dim=-1)

    def loss(self, points: torch.Tensor, headings: torch.Tensor, transitions: torch.Tensor, beta: float,
             generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor, dict]:
        """Reconstruction (L1, metres / SCALE_M) + β KL; returns (loss, μ, logs)."""
        mu, logvar = self.encode(points, headings)
        eps = torch.randn(mu.shape, generator=generator)
        z = mu + torch.exp(0.5 * logvar) * eps
        out = self.decoder(z)
        target = torch.cat(((points / SCALE_M).flatten(-2), torch.cos(transitions[..., 2:]),
                            torch.sin(transitions[..., 2:])), dim=-1)
        recon = (out - target).abs().mean()
        kl = 0.5 * (mu.pow(2) + logvar.exp() - 1.0 - logvar).sum(-1).mean()
        return recon + beta * kl, mu, {"recon": float(recon.detach()), "kl": float(kl.detach())}
