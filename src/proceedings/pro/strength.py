"""Watermark strength: KL(teacher || original), green-mass gaps, and delta calibrated to a target KL.

Equal delta is not equal strength: KGW adds delta to a gamma = 0.25 green list, PRO adds
delta (1 + M) / 2 with gamma = 0.5 and a learned M.  Both teachers are the original logits plus
delta times a fixed *unit bias* b (KGW: the green indicator; PRO: (1 + M) / 2), so
KL(softmax(l + delta b) || softmax(l)) grows monotonically with delta (its derivative is
delta Var_q(b) >= 0) and a bisection finds the delta that gives both methods the same KL on a
held-out calibration batch.  The green-mass gap (teacher or student minus original, under the
method's own green lists) and z per token (gap / sqrt(gamma (1 - gamma))) say how much of that
strength the detector can see.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass

import torch
import torch.nn.functional as F

from proceedings.core.errors import ProceedingsError


def unit_bias_and_green(watermark, input_ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(B, T, V) bias per unit of delta and green lists after each position, for a `WatermarkPolicy`
    (PRO: (1 + M) / 2 and M > 0) or a `KGWWatermark` (the green indicator, both times)."""
    from proceedings.pro.policy import WatermarkPolicy, unit_bias

    if isinstance(watermark, WatermarkPolicy):
        scores = watermark(input_ids)
        return unit_bias(scores), scores > 0
    green = watermark.green(input_ids)
    return green.float(), green


def teacher_kl(original_logits: torch.Tensor, unit_bias: torch.Tensor, delta: float) -> float:
    """mean_i KL(q_i || p_i), q = softmax(l + delta b), p = softmax(l); (B, T, V) inputs."""
    log_p = F.log_softmax(original_logits, dim=-1)
    log_q = F.log_softmax(original_logits + delta * unit_bias, dim=-1)
    return float((log_q.exp() * (log_q - log_p)).sum(-1).mean())


def green_gap(logits: torch.Tensor, original_logits: torch.Tensor, green: torch.Tensor) -> torch.Tensor:
    """(B,) per sequence: mean over positions of the green mass of `logits` minus the original's."""
    shift = F.softmax(logits, dim=-1) - F.softmax(original_logits, dim=-1)
    return (shift * green.float()).sum(-1).mean(-1)


def z_per_token(gap: float, gamma: float) -> float:
    """The z a text gains per scored token when its green fraction exceeds gamma by `gap`."""
    return gap / math.sqrt(gamma * (1 - gamma))


@dataclass
class Calibration:
    """The delta that gives a teacher the target KL on the calibration batch, and what it measured."""

    target_kl: float
    delta: float
    teacher_kl: float
    teacher_gap: float
    teacher_z_per_token: float
    iterations: int
    seconds: float

    def to_dict(self) -> dict:
        return asdict(self)


def calibrate_delta(original_logits: torch.Tensor, unit_bias: torch.Tensor, green: torch.Tensor, gamma: float,
                    target_kl: float, tolerance: float = 0.01, max_delta: float = 64.0) -> Calibration:
    """Bisect delta in (0, max_delta] until |KL - target| <= tolerance x target."""
    if not target_kl > 0:
        raise ProceedingsError(f"target_kl={target_kl}: the target KL(teacher || original) must be positive")
    started = time.perf_counter()
    low, high, iterations = 0.0, 1.0, 0
    while teacher_kl(original_logits, unit_bias, high) < target_kl:
        low, high = high, 2 * high
        if high > max_delta:
            raise ProceedingsError(f"target_kl={target_kl} is out of reach: delta={max_delta} gives KL "
                                   f"{teacher_kl(original_logits, unit_bias, max_delta):.3g}; choose a smaller target")
    delta, kl = high, teacher_kl(original_logits, unit_bias, high)
    while abs(kl - target_kl) > tolerance * target_kl and iterations < 60:
        delta = (low + high) / 2
        kl = teacher_kl(original_logits, unit_bias, delta)
        low, high = (delta, high) if kl < target_kl else (low, delta)
        iterations += 1
    gap = float(green_gap(original_logits + delta * unit_bias, original_logits, green).mean())
    return Calibration(target_kl, delta, kl, gap, z_per_token(gap, gamma), iterations,
                       time.perf_counter() - started)
