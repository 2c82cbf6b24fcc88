"""The JSONL record of one image (spec §2.1): objects with xyxy boxes, visible/amodal COCO RLE, depth rank,
visible fraction and captions; overlap pairs with region, front and relation; stats with OverLayScore.

`scene_record` builds it from a generated scene with exact masks; `check_record` decodes a record and
refuses one whose overlaps disagree with its masks, so no such record is ever written.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.overlay.captions import global_caption, label, relation_text, rich_caption, short_caption
from proceedings.overlay.overlaps import Pair, find_pairs, tight_box
from proceedings.overlay.render import Background, Rendering
from proceedings.overlay.score import overlayscore
from proceedings.overlay.sprites import Sprite


def rle_encode(mask: np.ndarray) -> dict:
    """COCO RLE (pycocotools), counts as a UTF-8 string so the record is JSON."""
    from pycocotools import mask as coco_mask

    rle = coco_mask.encode(np.asfortranarray(mask.astype(np.uint8)))
    return {"size": [int(s) for s in rle["size"]], "counts": rle["counts"].decode("ascii")}


def rle_decode(rle: dict) -> np.ndarray:
    from pycocotools import mask as coco_mask

    return coco_mask.decode({"size": rle["size"], "counts": rle["counts"].encode("ascii")}).astype(bool)


def depth_ranks(sprites: list[Sprite]) -> list[int]:
    """0 = farthest; strict order (z is already a permutation)."""
    order = sorted(range(len(sprites)), key=lambda k: (sprites[k].z, k))
    rank = [0] * len(sprites)
    for position, k in enumerate(order):
        rank[k] = position
    return rank


def overlap_entry(pair: Pair, labels: dict[int, str]) -> dict:
    back = pair.j if pair.front == pair.i else pair.i
    return {"i": pair.i, "j": pair.j, "bbox_iou": pair.bbox_iou, "region_bbox": pair.region_bbox,
            "region_mask": rle_encode(pair.region), "front": pair.front, "valid": pair.valid,
            "relation": relation_text(labels[back], labels[pair.front])}


def scene_record(image_id: str, sprites: list[Sprite], background: Background, rendering: Rendering,
                 caption_mode: str, encoder, seed: int, profile: str) -> dict:
    """The record of a generated image, every geometric field exact (OverLayScore left out when `encoder`
    is None, for add_overlayscores to fill in bulk)."""
    size = rendering.image.shape[0]
    ids = list(range(len(sprites)))
    ranks = depth_ranks(sprites)
    boxes = [tight_box(m) for m in rendering.amodal]
    pairs = find_pairs(ids, boxes, rendering.amodal, rendering.visible, ranks, size)
    labels = {k: label(s.to_dict()) for k, s in enumerate(sprites)}
    fractions = [float(v.sum() / a.sum()) for a, v in zip(rendering.amodal, rendering.visible)]
    captions = [_caption(k, s, pairs, labels, fractions[k], caption_mode) for k, s in enumerate(sprites)]
    objects = [{"id": k, "label": labels[k], "caption": captions[k], "bbox": boxes[k],
                "mask_visible": rle_encode(rendering.visible[k]), "mask_amodal": rle_encode(rendering.amodal[k]),
                "depth_rank": ranks[k], "visible_fraction": fractions[k],
                "attributes": {key: value for key, value in s.to_dict().items() if key != "z"}}
               for k, s in enumerate(sprites)]
    record = {"image_id": image_id, "file": f"images/{image_id}.png", "width": size, "height": size,
            "global_caption": global_caption(list(labels.values())), "objects": objects,
            "overlaps": [overlap_entry(p, labels) for p in pairs],
            "stats": {"n_objects": len(sprites), "n_overlap_pairs": len(pairs),
                      "n_valid_overlaps": sum(p.valid for p in pairs)},
            "provenance": {"source": "synthetic", "profile": profile, "caption": caption_mode, "seed": seed,
                           "background": background.to_dict()}}
    if encoder is not None:
        add_overlayscores([record], encoder)
    return record


def add_overlayscores(records: list[dict], encoder) -> None:
    """Fill stats.overlayscore (and the encoder's name) of every record, encoding all captions in one call."""
    captions = [o["caption"] for r in records for o in r["objects"]]
    embeddings, start = encoder.encode(captions), 0
    for record in records:
        n = len(record["objects"])
        boxes = [o["bbox"] for o in record["objects"]]
        record["stats"]["overlayscore"] = overlayscore(boxes, embeddings[start:start + n]) if n else 0.0
        record["stats"]["overlayscore_encoder"] = encoder.name
        record["provenance"].setdefault("models", {})["text_encoder"] = encoder.name
        start += n


def _caption(k: int, sprite: Sprite, pairs: list[Pair], labels: dict[int, str], fraction: float, mode: str) -> str:
    if mode == "short":
        return short_caption(sprite.to_dict())
    valid = [p for p in pairs if p.valid and k in (p.i, p.j)]
    other = lambda p: p.j if p.i == k else p.i  # noqa: E731
    behind = [labels[other(p)] for p in valid if p.front != k]
    in_front_of = [labels[other(p)] for p in valid if p.front == k]
    return rich_caption(sprite.to_dict(), sprite.cx, sprite.cy, behind, in_front_of, fraction)


def check_record(record: dict) -> None:
    """Raise unless every overlap's region, front and validity follow from the record's own masks."""
    size = record["width"]
    objects = {o["id"]: o for o in record["objects"]}
    ids = list(objects)
    amodal = [rle_decode(objects[i]["mask_amodal"]) if objects[i]["mask_amodal"] else None for i in ids]
    visible = [rle_decode(objects[i]["mask_visible"]) for i in ids]
    pairs = find_pairs(ids, [objects[i]["bbox"] for i in ids], amodal, visible,
                       [objects[i]["depth_rank"] for i in ids], size)
    stored = {(o["i"], o["j"]): o for o in record["overlaps"]}
    if set(stored) != {(p.i, p.j) for p in pairs}:
        raise ProceedingsError(f"image {record['image_id']}: overlap pairs disagree with the boxes")
    for p in pairs:
        entry = stored[(p.i, p.j)]
        if entry["front"] != p.front or entry["valid"] != p.valid or not np.array_equal(rle_decode(entry["region_mask"]), p.region):
            raise ProceedingsError(f"image {record['image_id']}: overlap ({p.i}, {p.j}) disagrees with its masks")


def read_records(path: Path | str, bbox_format: str = "xyxy") -> list[dict]:
    """Records of a JSONL file, or of every part-*.jsonl in a folder (shards in order), each checked
    (validate.check_layout): a bad line stops with one line naming its file and line."""
    from proceedings.overlay.validate import check_layout

    path = Path(path)
    files = sorted(path.glob("part-*.jsonl")) if path.is_dir() else [path]
    if not files or not all(f.exists() for f in files):
        raise ProceedingsError(f"no annotations at '{path}'; pass a .jsonl file or a folder of part-*.jsonl shards")
    records = []
    for file in files:
        for number, line in enumerate(file.read_text().splitlines(), 1):
            if line.strip():
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError:
                    raise ProceedingsError(f"{file}:{number} is not a JSON record") from None
                check_layout(records[-1], f"{file}:{number}", bbox_format)
    return records
