"""Data-set statistics (spec §2.2 step 10) and the dense-vs-sparse comparison (E1, the paper's 1.67x and 6x).

Caption length is counted in words per object caption (the spec's reading of "six times longer").
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from proceedings.overlay.captions import word_count
from proceedings.overlay.score import terciles


def summarize(records: list[dict]) -> dict:
    """Objects/image, overlap pairs/image, share with a pair IoU > 0.3, words/caption, OverLayScore."""
    if not records:
        return {"images": 0}
    objects = [len(r["objects"]) for r in records]
    words = [word_count(o["caption"]) for r in records for o in r["objects"]]
    ols = [r["stats"]["overlayscore"] for r in records]
    encoders = sorted({r["stats"].get("overlayscore_encoder", "?") for r in records})
    return {
        "images": len(records),
        "objects_per_image": float(np.mean(objects)),
        "overlap_pairs_per_image": float(np.mean([len(r["overlaps"]) for r in records])),
        "valid_overlaps_per_image": float(np.mean([sum(o.get("valid", True) for o in r["overlaps"]) for r in records])),
        "share_with_pair_iou_over_0.3": float(np.mean([any(o["bbox_iou"] > 0.3 for o in r["overlaps"]) for r in records])),
        "words_per_caption": float(np.mean(words)) if words else 0.0,
        "overlayscore_mean": float(np.mean(ols)),
        "overlayscore_terciles": list(terciles(ols)),
        "overlayscore_encoder": ",".join(encoders),
        "categories": dict(Counter(o["label"] for r in records for o in r["objects"]).most_common()),
    }


def compare(dense: dict, sparse: dict) -> dict:
    """Ratios of two summaries (dense over sparse)."""
    ratio = lambda key: dense[key] / sparse[key] if sparse.get(key) else float("inf")  # noqa: E731
    return {"density_ratio": ratio("objects_per_image"), "caption_words_ratio": ratio("words_per_caption"),
            "overlayscore_ratio": ratio("overlayscore_mean")}


def markdown(summary: dict, title: str = "") -> str:
    rows = [f"| {key} | {value:.3f} |" if isinstance(value, float) else f"| {key} | {value} |"
            for key, value in summary.items() if key != "categories"]
    return "\n".join(([f"### {title}", ""] if title else []) + ["| statistic | value |", "|---|---|", *rows])
