"""Exports (spec §2.1): COCO instances + captions, LayoutSAM entity lists, OverLayBench annotations.

- `coco`: one JSON with images, annotations (xywh box, visible-mask RLE, area, caption), categories.
- `layoutsam`: per image the global caption and entity list {bbox (xyxy), description}.
- `overlaybench`: per image {"annotations", "relations", "valid_overlap"} as the OverLayBench meter reads.
Every path is resolved inside `--out`.
"""

from __future__ import annotations

import json
from pathlib import Path

from proceedings.core.errors import ProceedingsError
from proceedings.core.runtime import atomic_write_text
from proceedings.overlay.records import rle_decode

FORMATS = ("coco", "layoutsam", "overlaybench")


def to_coco(records: list[dict]) -> dict:
    labels = sorted({o["label"] for r in records for o in r["objects"]})
    category = {name: k + 1 for k, name in enumerate(labels)}
    images, annotations = [], []
    for number, record in enumerate(records, 1):
        images.append({"id": number, "file_name": record["file"], "width": record["width"], "height": record["height"],
                       "caption": record["global_caption"]})
        for obj in record["objects"]:
            x1, y1, x2, y2 = obj["bbox"]
            annotations.append({"id": len(annotations) + 1, "image_id": number, "category_id": category[obj["label"]],
                                "bbox": [x1, y1, x2 - x1, y2 - y1], "area": int(rle_decode(obj["mask_visible"]).sum()),
                                "segmentation": obj["mask_visible"], "iscrowd": 0, "caption": obj["caption"],
                                "depth_rank": obj["depth_rank"]})
    return {"images": images, "annotations": annotations,
            "categories": [{"id": k, "name": name} for name, k in category.items()]}


def to_layoutsam(records: list[dict]) -> list[dict]:
    return [{"image_id": r["image_id"], "file": r["file"], "global_caption": r["global_caption"],
             "entity": [{"bbox": o["bbox"], "description": o["caption"]} for o in r["objects"]]} for r in records]


def to_overlaybench(records: list[dict]) -> dict:
    return {r["image_id"]: {
        "annotations": [{"id": o["id"], "bbox": o["bbox"], "category": o["label"], "description": o["caption"]}
                        for o in r["objects"]],
        "relations": [{"subject": o["front"], "object": o["j"] if o["front"] == o["i"] else o["i"],
                       "relation": o["relation"]} for o in r["overlaps"]],
        "valid_overlap": [[o["i"], o["j"]] for o in r["overlaps"] if o.get("valid", True)],
    } for r in records}


def export(records: list[dict], fmt: str, out: Path | str) -> Path:
    """Write `records` in `fmt` to the file `out`."""
    if fmt not in FORMATS:
        raise ProceedingsError(f"unknown export format '{fmt}'; choose one of: {', '.join(FORMATS)}")
    data = {"coco": to_coco, "layoutsam": to_layoutsam, "overlaybench": to_overlaybench}[fmt](records)
    return atomic_write_text(Path(out), json.dumps(data))
