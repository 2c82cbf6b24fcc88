"""P-EAGLE's training elements: COD sampling, the precomputed attention mask and sequence partitioning
(spec §2.3; the paper's "attention mask pre-computation and sequence partitioning").

A training element (a, d) is anchor a (a verified position) at depth d; it sits at position a + d and is
trained on the target's distribution at position a + 1 + d. Depth 0 is the ordinary EAGLE element; every
anchor 0..L-2 is one, as context. COD sampling keeps, at depth d >= 1, floor((n - d) * max(r^d, r_min))
anchors drawn from those kept at depth d - 1 (n = loss positions at depth 0), so every element's whole
chain is present and a K-deep drafter costs ~3.4 n elements instead of K n (K = 8).

Partitioning splits the anchors into S contiguous segments. Segment s recomputes the depth-0 prefix it
attends to and holds the chains of its own anchors; losses are weighted by the global per-depth counts,
so the S segment gradients sum to the full-sequence gradient while the attention area is ~1/S of it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from proceedings.core.errors import ProceedingsError
from proceedings.peagle.drafter import chain_mask


def cod_sample(loss_valid: torch.Tensor, k: int, ratio: float = 0.7, min_ratio: float = 0.2,
               generator: torch.Generator | None = None) -> list[torch.Tensor]:
    """Anchors kept at depths 0..k-1 (sorted). loss_valid (L,): whether position j's target distribution is
    trained on; depth-d anchor a needs loss_valid[a + 1 + d]."""
    if k < 1 or not 0 < ratio <= 1 or not 0 <= min_ratio <= 1:
        raise ProceedingsError(f"COD sampling needs K >= 1, 0 < r <= 1, 0 <= r_min <= 1 (got {k}, {ratio}, {min_ratio})")
    length = len(loss_valid)
    anchors = torch.arange(max(length - 1, 0))
    kept = [anchors[loss_valid[anchors + 1]]]
    n = len(kept[0])
    for depth in range(1, k):
        previous = kept[-1]
        pool = previous[previous + 1 + depth < length]
        pool = pool[loss_valid[pool + 1 + depth]]
        count = min(len(pool), math.floor((n - depth) * max(ratio ** depth, min_ratio)))
        pick = torch.randperm(len(pool), generator=generator)[:max(count, 0)]
        kept.append(pool[pick].sort().values)
    return kept


@dataclass
class Elements:
    """Elements of one forward: (anchor, depth) and the loss weight of each (0: context only)."""

    anchors: torch.Tensor
    depths: torch.Tensor
    weights: torch.Tensor

    @property
    def positions(self) -> torch.Tensor:
        return self.anchors + self.depths

    def mask(self) -> torch.Tensor:
        """The boolean attention mask, computed once and shared by every layer, forward and backward."""
        return chain_mask(self.anchors, self.depths, self.anchors, self.depths)

    def __len__(self) -> int:
        return len(self.anchors)


def parallel_elements(kept: list[torch.Tensor], length: int) -> Elements:
    """Every anchor at depth 0 (as context), the COD-kept chains at depths >= 1; a kept element's loss
    weight is 1 / (depths present * elements at its depth): per-depth means, averaged over depths."""
    present = [k for k in kept if len(k)]
    anchors = [torch.arange(max(length - 1, 0))] + [k for k in kept[1:]]
    depths = [torch.zeros(len(anchors[0]), dtype=torch.long)] + [torch.full((len(k),), d) for d, k in enumerate(kept[1:], 1)]
    weights = [torch.zeros(len(anchors[0]))]
    if len(kept[0]):
        weights[0][kept[0]] = 1.0 / (len(present) * len(kept[0]))
    weights += [torch.full((len(k),), 1.0 / (len(present) * len(k))) if len(k) else torch.zeros(0) for k in kept[1:]]
    return Elements(torch.cat(anchors), torch.cat(depths), torch.cat(weights))


def partition(elements: Elements, segments: int) -> list[Elements]:
    """S contiguous anchor segments; each holds the depth-0 prefix it attends to (weight 0 before its
    start: recomputed context) and every element anchored inside it."""
    if segments < 1:
        raise ProceedingsError(f"the number of partitions must be at least 1, got {segments}")
    top = int(elements.anchors.max()) + 1 if len(elements) else 0
    bounds = [round(i * top / segments) for i in range(segments + 1)]
    parts = []
    for start, end in zip(bounds[:-1], bounds[1:]):
        if end <= start:
            continue
        inside = (elements.anchors >= start) & (elements.anchors < end)
        prefix = (elements.depths == 0) & (elements.anchors < start)
        keep = inside | prefix
        parts.append(Elements(elements.anchors[keep], elements.depths[keep],
                              torch.where(inside[keep], elements.weights[keep], torch.zeros(())))
                     )
    return parts


def attention_area(parts: list[Elements]) -> int:
    """The largest query x key count of one forward: what the attention scores of a step hold at once."""
    return max(len(p) ** 2 for p in parts)
