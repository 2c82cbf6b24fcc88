"""The annotate pipeline (spec §2.2): entities -> grounding -> segmentation -> amodal completion ->
occlusion order -> amodal completion again, now only under nearer objects -> overlaps -> relation text
and captions -> quality filters.

Each stage is a back-end (see backends.py); the overlap and order stages are the same code that gives
the generator its exact records (overlaps.py), run here on estimated masks. Never trust the plan: the
record is rebuilt from what the back-ends see.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from proceedings.overlay.amodal import complete
from proceedings.overlay.backends import Detection, load_backends
from proceedings.overlay.captions import global_caption, relation_text, rich_caption
from proceedings.overlay.overlaps import find_pairs, iou
from proceedings.overlay.records import check_record, rle_encode
from proceedings.overlay.refine import refine_masks
from proceedings.overlay.score import overlayscore

MIN_SIDE = 0.02  # spec §2.2 step 8: boxes narrower than 2 % of the side are dropped
NMS_IOU = 0.85  # duplicates of one phrase


@dataclass
class Backends:
    detector: str = "oracle"
    segmenter: str = "oracle"
    text_encoder: str = "bow"
    device: str = "cpu"


def quality_filter(detections: list[Detection], size: int) -> list[Detection]:
    """Inside the image, not too thin, a mask, no same-phrase duplicate (class-aware NMS)."""
    kept: list[Detection] = []
    for det in sorted(detections, key=lambda d: -d.score):
        x1, y1, x2, y2 = det.box
        if min(x2 - x1, y2 - y1) < MIN_SIDE * size or det.visible is None or not det.visible.any():
            continue
        if any(k.label == det.label and iou(k.box, det.box) > NMS_IOU for k in kept):
            continue
        kept.append(det)
    return kept


def depth_order(n: int, fronts: list[tuple[int, int]], visible_fraction: list[float]) -> list[int]:
    """Depth ranks (0 = farthest) from "a is in front of b" pairs by topological sort; a cycle is broken
    by putting the least visible remaining object farthest (no depth model here)."""
    behind = {k: set() for k in range(n)}  # k -> objects that must be farther than k
    for front, back in fronts:
        behind[front].add(back)
    rank, placed = [0] * n, set()
    for position in range(n):
        ready = [k for k in range(n) if k not in placed and behind[k] <= placed]
        pool = ready or [k for k in range(n) if k not in placed]
        pick = min(pool, key=lambda k: (visible_fraction[k], k))
        rank[pick], placed = position, placed | {pick}
    return rank


def complete_all(detections: list[Detection], exposed: list[np.ndarray]) -> list[np.ndarray]:
    """Amodal masks: each detection's shape template; `exposed[k]` are the pixels where nothing could hide
    object k, so its template may not reach them."""
    return [complete(d.label.split()[-1], d.box, d.visible, free) for d, free in zip(detections, exposed)]


def occlusion_order(ids: list[int], boxes: list, amodal: list[np.ndarray], visible: list[np.ndarray],
                    size: int) -> list[int]:
    """Depth ranks from the pairwise fronts (who covers more of the shared region) of these amodal masks."""
    fraction = [float(v.sum() / max(a.sum(), 1)) for v, a in zip(visible, amodal)]
    pairs = find_pairs(ids, boxes, amodal, visible, [0] * len(ids), size)
    return depth_order(len(ids), [(p.front, p.j if p.front == p.i else p.i) for p in pairs if p.region.any()], fraction)


def occluders_only(visible: list[np.ndarray], ranks: list[int]) -> list[np.ndarray]:
    """Per object, the exposed pixels once the depth order is known: all but its own and the nearer objects'
    visible pixels (spec §2.2 step 5; an object reaching over a farther object's visible pixels would hide them)."""
    free = []
    for k, rank in enumerate(ranks):
        nearer = np.zeros_like(visible[k])
        for j, other in enumerate(visible):
            if ranks[j] > rank:
                nearer |= other
        free.append(~(nearer | visible[k]))
    return free


def annotate_image(image: np.ndarray, image_id: str, truth: dict | None, backends: Backends, detector=None,
                   segmenter=None, seed: int = 0, encoder=None, refine: bool = True) -> dict:
    """One image's record built from the back-ends' view of it (truth feeds only the oracle back-ends)."""
    from proceedings.overlay.text_encoder import text_encoder

    if detector is None or segmenter is None:
        detector, segmenter = load_backends(backends.detector, backends.segmenter, backends.device)
    rng = np.random.default_rng([seed, int.from_bytes(image_id.encode()[-6:].rjust(6, b"\0"), "big")])
    size = image.shape[0]
    detections = detector.detect(image, truth, rng) if truth is not None else detector.detect(image, _phrases())
    if hasattr(segmenter, "noisy"):
        segmenter.segment(image, detections, truth, rng)
    else:
        segmenter.segment(image, detections)
    segmented = [d for d in detections if d.visible is not None]
    if refine:
        for det, mask in zip(segmented, refine_masks(image, [d.visible for d in segmented])):
            det.visible = mask
    detections = quality_filter(detections, size)
    record = build_record(image_id, size, detections, backends, seed, encoder or text_encoder(backends.text_encoder))
    check_record(record)
    return record


def build_record(image_id: str, size: int, detections: list[Detection], backends: Backends, seed: int, encoder) -> dict:
    """Amodal completion, occlusion order, overlaps and captions over a set of segmented detections."""
    ids = list(range(len(detections)))
    visible = [d.visible for d in detections]
    boxes = [d.box for d in detections]
    covered = np.zeros((size, size), bool)
    for v in visible:
        covered |= v
    # First pass: only background bounds a hidden part; its occlusion order then lets only nearer objects hide one.
    ranks = occlusion_order(ids, boxes, complete_all(detections, [~covered] * len(ids)), visible, size)
    amodal = complete_all(detections, occluders_only(visible, ranks))
    fraction = [float(v.sum() / max(a.sum(), 1)) for v, a in zip(visible, amodal)]
    pairs = find_pairs(ids, boxes, amodal, visible, ranks, size)  # ties in coverage go to the nearer object
    labels = {k: d.label for k, d in zip(ids, detections)}
    objects = []
    for k, det in zip(ids, detections):
        mine = [p for p in pairs if p.valid and k in (p.i, p.j)]
        other = lambda p: p.j if p.i == k else p.i  # noqa: E731
        colour, shape = (det.label.split() + ["", ""])[:2]
        attributes = {"colour": colour, "shape": shape}
        box = [float(v) for v in det.box]
        cx, cy = (box[0] + box[2]) / 2 / size, (box[1] + box[3]) / 2 / size
        caption = rich_caption(attributes, cx, cy, [labels[other(p)] for p in mine if p.front != k],
                               [labels[other(p)] for p in mine if p.front == k], fraction[k])
        objects.append({"id": k, "label": det.label, "caption": caption, "bbox": box,
                        "mask_visible": rle_encode(det.visible), "mask_amodal": rle_encode(amodal[k]),
                        "depth_rank": ranks[k], "visible_fraction": fraction[k], "attributes": {"score": det.score}})
    overlaps = [{"i": p.i, "j": p.j, "bbox_iou": p.bbox_iou, "region_bbox": p.region_bbox,
                 "region_mask": rle_encode(p.region), "front": p.front, "valid": p.valid,
                 "relation": relation_text(labels[p.j if p.front == p.i else p.i], labels[p.front])} for p in pairs]
    captions = [o["caption"] for o in objects]
    return {"image_id": image_id, "file": f"images/{image_id}.png", "width": size, "height": size,
            "global_caption": global_caption(list(labels.values())), "objects": objects, "overlaps": overlaps,
            "stats": {"n_objects": len(objects), "n_overlap_pairs": len(overlaps),
                      "n_valid_overlaps": sum(p.valid for p in pairs),
                      "overlayscore": overlayscore([o["bbox"] for o in objects], encoder.encode(captions)) if objects else 0.0,
                      "overlayscore_encoder": encoder.name},
            "provenance": {"source": "annotated", "seed": seed,
                           "models": {"detector": backends.detector, "segmenter": backends.segmenter,
                                      "amodal": "shape templates", "text_encoder": encoder.name}}}


def _phrases() -> list[str]:
    from proceedings.overlay.sprites import COLOUR_NAMES, SHAPES

    return [f"{c} {s}" for c in COLOUR_NAMES for s in SHAPES]

