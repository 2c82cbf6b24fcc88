"""Quality and consistency of generated assemblies, all on a box fitted to each component (issue 27).

- part IoU: per generated assembly, the closest held-out sample of its class under Hungarian matching of
  component boxes (mean matched IoU over max(N_gen, N_ref) parts, unmatched parts count 0);
- 1-NNA (Chamfer): generated and held-out assemblies resampled on their fitted boxes' surfaces, each
  classified by its nearest neighbour in the union; 0.5 means indistinguishable, 1.0 fully separable;
- violation rate: (floating components + colliding pairs) / components, where a component floats when no
  other component comes within ε of it and a pair collides when it overlaps by more than ε. ε is
  calibrated on grammar samples' fitted boxes so that grammar samples score exactly 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from proceedings.moca.boxes import Box, fit_box, iou_matrix, separation
from proceedings.moca.data.procedural import surface_points

EPSILON_MARGIN = 1.25  # ε = margin x the largest gap/overlap seen on calibration samples


def fit_assembly(points: np.ndarray, name: str = "sample") -> list[Box]:
    """One fitted box per component of (N, L, 3) points."""
    return [fit_box(p, f"{name} component {i}") for i, p in enumerate(np.asarray(points))]


def separations(boxes: list[Box]) -> np.ndarray:
    """(N, N) signed separations, +inf on the diagonal."""
    n = len(boxes)
    out = np.full((n, n), np.inf)
    for i in range(n):
        for j in range(i + 1, n):
            out[i, j] = out[j, i] = separation(boxes[i], boxes[j])
    return out


@dataclass
class Violations:
    floating: int
    colliding: int
    components: int

    @property
    def total(self) -> int:
        return self.floating + self.colliding


def violations(boxes: list[Box], eps: float) -> Violations:
    """Floating components (nothing within ε) and colliding pairs (penetration deeper than ε)."""
    sep = separations(boxes)
    floating = int(np.sum(sep.min(1) > eps)) if len(boxes) > 1 else 0
    colliding = int(np.sum(np.triu(sep < -eps, 1)))
    return Violations(floating, colliding, len(boxes))


def calibrate_epsilon(box_sets: list[list[Box]]) -> float:
    """The smallest ε under which every calibration assembly has no violation, times EPSILON_MARGIN."""
    worst = 0.0
    for boxes in box_sets:
        sep = separations(boxes)
        if len(boxes) > 1:
            worst = max(worst, float(sep.min(1).max()))
        finite = sep[np.isfinite(sep)]
        if finite.size:
            worst = max(worst, float(-finite.min()))
    return EPSILON_MARGIN * worst


def violation_rate(box_sets: list[list[Box]], eps: float) -> float:
    found = [violations(boxes, eps) for boxes in box_sets]
    return sum(v.total for v in found) / max(1, sum(v.components for v in found))


def matched_iou(a: list[Box], b: list[Box]) -> float:
    """Hungarian-matched mean part IoU, unmatched parts counting 0."""
    from scipy.optimize import linear_sum_assignment

    m = iou_matrix(a, b)
    rows, cols = linear_sum_assignment(-m)
    return float(m[rows, cols].sum() / max(len(a), len(b)))


def part_iou(generated: list[list[Box]], reference: list[list[Box]], exclude_self: bool = False) -> float:
    """Mean over generated assemblies of the matched IoU to their closest reference assembly."""
    scores = []
    for g, boxes in enumerate(generated):
        best = max(matched_iou(boxes, ref) for r, ref in enumerate(reference) if not (exclude_self and r == g))
        scores.append(best)
    return float(np.mean(scores))


def resample(boxes: list[Box], count: int, seed: int = 0) -> np.ndarray:
    """`count` points on the surfaces of an assembly's boxes, split by surface area, (count, 3)."""
    rng = np.random.default_rng(seed)
    areas = np.array([2 * (b.half[0] * b.half[1] + b.half[1] * b.half[2] + b.half[0] * b.half[2]) for b in boxes])
    per = rng.multinomial(count, areas / areas.sum()) if areas.sum() > 0 else np.full(len(boxes), count // len(boxes))
    return np.concatenate([surface_points(b.center, b.half, b.rotation, k, rng) for b, k in zip(boxes, per) if k])


def chamfer_matrix(clouds: list[np.ndarray]) -> np.ndarray:
    """Symmetric Chamfer distances (mean squared nearest-neighbour distance both ways), (S, S)."""
    import torch

    x = torch.from_numpy(np.stack(clouds)).float()  # (S, P, 3)
    s = len(clouds)
    out = np.zeros((s, s))
    for i in range(s):
        d = torch.cdist(x[i : i + 1].expand(s, -1, -1), x).pow(2)  # (S, P, P)
        out[i] = (d.min(2).values.mean(1) + d.min(1).values.mean(1)).numpy()
    return out


def one_nna(generated: list[list[Box]], reference: list[list[Box]], points: int = 256) -> float:
    """1-NNA accuracy (Chamfer) between equal-size sets of box-resampled assemblies."""
    size = min(len(generated), len(reference))
    clouds = [resample(b, points, seed=i) for i, b in enumerate(generated[:size] + reference[:size])]
    dist = chamfer_matrix(clouds)
    np.fill_diagonal(dist, np.inf)
    labels = np.array([0] * size + [1] * size)
    return float(np.mean(labels[dist.argmin(1)] == labels))
