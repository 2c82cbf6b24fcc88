"""Physics baselines: constant velocity, and CTRV with K turn rates (issue 25).

Both read the current state from the observed track: velocity = displacement over the last 0.5 s,
turn rate = heading change over the last 0.5 s. CV is one mode. CTRV rolls out K constant turn-rate
and speed arcs whose turn rates are the estimate plus Gaussian quantiles (σ = 0.3 rad/s) at
(k + 0.5) / K, weighted by the Gaussian density.
"""

from __future__ import annotations

import math

import torch

from proceedings.mocar.batch import Batch
from proceedings.mocar.forecast import Forecast
from proceedings.mocar.frames import SEGMENT, wrap

STEP_S = 0.1
TURN_RATE_SD = 0.3  # rad/s


def _state(batch: Batch) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(position (B, 2), velocity (B, 2), heading (B,), turn rate (B,)) at the current step."""
    t, back = batch.current, SEGMENT
    velocity = (batch.xy[:, t] - batch.xy[:, t - back]) / (back * STEP_S)
    rate = wrap(batch.heading[:, t] - batch.heading[:, t - back]) / (back * STEP_S)
    return batch.xy[:, t], velocity, batch.heading[:, t], rate


def constant_velocity(batch: Batch, horizon: int | None = None) -> Forecast:
    steps = (horizon or batch.future) * SEGMENT
    pos, velocity, _, _ = _state(batch)
    dt = torch.arange(1, steps + 1, dtype=pos.dtype) * STEP_S
    points = pos[:, None] + velocity[:, None] * dt[None, :, None]
    return Forecast(points[:, None], torch.ones(len(pos), 1))


def ctrv(batch: Batch, modes: int = 6, horizon: int | None = None) -> Forecast:
    steps = (horizon or batch.future) * SEGMENT
    pos, velocity, heading, rate = _state(batch)
    speed = velocity.norm(dim=-1)
    quantiles = torch.tensor([_normal_quantile((k + 0.5) / modes) for k in range(modes)], dtype=pos.dtype)
    omega = rate[:, None] + TURN_RATE_SD * quantiles  # (B, K)
    t = torch.arange(1, steps + 1, dtype=pos.dtype) * STEP_S  # (T,)
    theta = heading[:, None, None] + omega[..., None] * t  # (B, K, T)
    small = omega.abs() < 1e-4
    safe = torch.where(small, torch.ones_like(omega), omega)[..., None]
    arc_x = (torch.sin(theta) - torch.sin(heading)[:, None, None]) / safe
    arc_y = (torch.cos(heading)[:, None, None] - torch.cos(theta)) / safe
    straight_x, straight_y = torch.cos(heading)[:, None, None] * t, torch.sin(heading)[:, None, None] * t
    dx = torch.where(small[..., None], straight_x, arc_x) * speed[:, None, None]
    dy = torch.where(small[..., None], straight_y, arc_y) * speed[:, None, None]
    points = pos[:, None, None] + torch.stack((dx, dy), dim=-1)
    weights = torch.exp(-0.5 * quantiles ** 2)
    return Forecast(points, (weights / weights.sum()).expand(len(pos), -1).clone())


def _normal_quantile(p: float) -> float:
    """Φ^{-1}(p) by bisection on erf (no scipy needed)."""
    lo, hi = -10.0, 10.0
    for _ in range(80):
        mid = (lo + hi) / 2
        if 0.5 * (1 + math.erf(mid / math.sqrt(2))) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2
