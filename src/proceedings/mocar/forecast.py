"""What every forecaster returns, and the winner-take-all loss the multi-modal arms train with."""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F

# physical limit per 0.5 s segment: 30 m/s, above every SUMO city's speed limit (16.7 m/s x speed factor)
# and AV2's highways. The spec's 6 m (12 m/s) is below city A's 13.9 m/s limit: it cut 37 % of A's true
# segments (measured on the tiny data), so it shortened every fast rollout.
MAX_SEGMENT_M = 15.0


@dataclass
class Forecast:
    points: torch.Tensor  # (B, K, T, 2) global coordinates
    probabilities: torch.Tensor  # (B, K)
    clamped: int = 0  # segments whose displacement was clamped to MAX_SEGMENT_M (flagged, never silent)


def clamp_transition(transition: torch.Tensor) -> tuple[torch.Tensor, int]:
    """Limit a segment's displacement to MAX_SEGMENT_M; returns the transitions and how many were clamped."""
    length = transition[..., :2].norm(dim=-1, keepdim=True)
    over = length > MAX_SEGMENT_M
    scale = torch.where(over, MAX_SEGMENT_M / length.clamp_min(1e-9), torch.ones_like(length))
    return torch.cat((transition[..., :2] * scale, transition[..., 2:]), dim=-1), int(over.sum())


def winner_take_all(trajectories: torch.Tensor, logits: torch.Tensor, truth: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Smooth-L1 on the best mode (by ADE) plus cross-entropy of the mode logits on it.

    trajectories (B, K, T, 2), logits (B, K), truth (B, T, 2); returns (loss, winner index (B,)).
    """
    ade = (trajectories - truth[:, None]).norm(dim=-1).mean(-1)  # (B, K)
    winner = ade.detach().argmin(1)
    best = trajectories[torch.arange(len(winner), device=winner.device), winner]
    return F.smooth_l1_loss(best, truth) + F.cross_entropy(logits, winner), winner
