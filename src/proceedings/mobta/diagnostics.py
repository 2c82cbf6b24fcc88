"""Stability diagnostics of task vectors (spec §2.4): per-parameter cosine and norm ratio, and the overall cosine.

The paper's theory says shift vectors from base and instruction-tuned backbones project stably onto a
low-dimensional task subspace; at laptop scale we can only report how aligned two shift vectors are.
"""

from __future__ import annotations

import torch

from proceedings.mobta.task_vector import TaskVector


def cosine(a: TaskVector, b: TaskVector) -> float:
    """Cosine of two vectors over their shared parameters."""
    keys = sorted(set(a.deltas) & set(b.deltas))
    dot = sum(float((a.deltas[k].double() * b.deltas[k].double()).sum()) for k in keys)
    na = sum(float((a.deltas[k].double() ** 2).sum()) for k in keys) ** 0.5
    nb = sum(float((b.deltas[k].double() ** 2).sum()) for k in keys) ** 0.5
    return dot / (na * nb) if na and nb else 0.0


def compare(a: TaskVector, b: TaskVector) -> list[tuple[str, float, float]]:
    """(parameter, cosine, |a|/|b|) for every shared parameter, largest |a| first."""
    rows = []
    for key in sorted(set(a.deltas) & set(b.deltas), key=lambda k: -float(a.deltas[k].norm())):
        x, y = a.deltas[key].double().flatten(), b.deltas[key].double().flatten()
        rows.append((key, float(torch.nn.functional.cosine_similarity(x, y, dim=0)), float(x.norm() / y.norm().clamp_min(1e-30))))
    return rows
