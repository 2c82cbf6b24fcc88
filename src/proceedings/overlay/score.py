"""OverLayScore (OverLayBench): OLS = sum_{i<j} IoU(b_i, b_j) * cos(p_i, p_j), p = caption embeddings.

The original uses CLIP's text encoder; here the default is all-MiniLM-L6-v2 (`minilm`) and the tiny
preset may use the recorded bag-of-words encoder (`bow`). The encoder's name is stored beside every
score, so scores from different encoders are never compared.
"""

from __future__ import annotations

import numpy as np

from proceedings.overlay.overlaps import iou


def overlayscore(boxes: list, embeddings: np.ndarray) -> float:
    """OLS of one layout: xyxy boxes and one caption embedding per box (rows need not be unit length)."""
    if len(boxes) != len(embeddings):
        raise ValueError(f"{len(boxes)} boxes but {len(embeddings)} caption embeddings")
    norms = np.linalg.norm(embeddings, axis=1, keepdims=True)
    unit = embeddings / np.maximum(norms, 1e-12)
    total = 0.0
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            overlap = iou(boxes[i], boxes[j])
            if overlap > 0:
                total += overlap * float(unit[i] @ unit[j])
    return total


def terciles(scores: list[float]) -> tuple[float, float]:
    """The two cut points that split scores into simple / medium / hard thirds."""
    return tuple(float(q) for q in np.quantile(np.asarray(scores), [1 / 3, 2 / 3]))


def difficulty(score: float, cuts: tuple[float, float]) -> str:
    return "simple" if score <= cuts[0] else "medium" if score <= cuts[1] else "hard"
