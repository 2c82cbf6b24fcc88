"""E1 pipeline accuracy: recovered overlaps against exact ground truth (spec §5, issue 28 check 3).

Detected objects are matched to true ones (same label, greedy box IoU >= 0.5). Pair recall and
precision count the pipeline's valid pairs against the true valid pairs; on every true valid overlap
the pipeline recovered, its region mask and front object are scored against the truth, beside the
naive rule of baselines.py on the very same two detections.
"""

from __future__ import annotations

import numpy as np

from proceedings.overlay.baselines import naive_overlap
from proceedings.overlay.records import rle_decode

MATCH_IOU = 0.5


def match_objects(predicted: list[dict], truth: list[dict]) -> dict[int, int]:
    """predicted id -> true id, greedy by box IoU among same-label pairs."""
    from proceedings.overlay.overlaps import iou

    candidates = sorted(((iou(p["bbox"], t["bbox"]), p["id"], t["id"]) for p in predicted for t in truth
                         if p["label"] == t["label"]), reverse=True)
    matched, used = {}, set()
    for overlap, p, t in candidates:
        if overlap >= MATCH_IOU and p not in matched and t not in used:
            matched[p] = t
            used.add(t)
    return matched


def mask_iou(a: np.ndarray, b: np.ndarray) -> float:
    union = (a | b).sum()
    return float((a & b).sum() / union) if union else 1.0


def score_image(predicted: dict, truth: dict) -> dict[str, list]:
    """Per-pair outcomes of one image (lists, so images pool by concatenation)."""
    to_true = match_objects(predicted["objects"], truth["objects"])
    to_pred = {t: p for p, t in to_true.items()}
    boxes = {o["id"]: o["bbox"] for o in predicted["objects"]}
    found = {frozenset((to_true[o["i"]], to_true[o["j"]])): o for o in predicted["overlaps"]
             if o["valid"] and o["i"] in to_true and o["j"] in to_true}
    size = (truth["height"], truth["width"])  # (rows, columns)
    out = {"pipeline_region_iou": [], "pipeline_front": [], "naive_region_iou": [], "naive_front": [], "recalled": []}
    true_valid = [o for o in truth["overlaps"] if o["valid"]]
    for pair in true_valid:
        ours = found.get(frozenset((pair["i"], pair["j"])))
        out["recalled"].append(ours is not None)
        if ours is None:
            continue
        region = rle_decode(pair["region_mask"])
        out["pipeline_region_iou"].append(mask_iou(rle_decode(ours["region_mask"]), region))
        out["pipeline_front"].append(to_true[ours["front"]] == pair["front"])
        pi, pj = to_pred[pair["i"]], to_pred[pair["j"]]
        naive_region, naive_front = naive_overlap(boxes[pi], boxes[pj], size)
        out["naive_region_iou"].append(mask_iou(naive_region, region))
        out["naive_front"].append((pi, pj)[naive_front] == to_pred[pair["front"]])
    true_keys = {frozenset((o["i"], o["j"])) for o in true_valid}
    out["precise"] = [key in true_keys for key in found]
    return out


def annotation_report(predicted: list[dict], truth: list[dict]) -> dict:
    """Pooled accuracy of the pipeline and the naive rule over matched images."""
    pooled: dict[str, list] = {}
    by_id = {r["image_id"]: r for r in truth}
    for record in predicted:
        for key, values in score_image(record, by_id[record["image_id"]]).items():
            pooled.setdefault(key, []).extend(values)
    mean = lambda key: float(np.mean(pooled[key])) if pooled.get(key) else 0.0  # noqa: E731
    return {"images": len(predicted), "true_valid_pairs": len(pooled.get("recalled", [])),
            "scored_pairs": len(pooled.get("pipeline_front", [])),
            "pipeline": {"front_accuracy": mean("pipeline_front"), "region_iou": mean("pipeline_region_iou"),
                         "pair_recall": mean("recalled"), "pair_precision": mean("precise")},
            "naive": {"front_accuracy": mean("naive_front"), "region_iou": mean("naive_region_iou")}}
