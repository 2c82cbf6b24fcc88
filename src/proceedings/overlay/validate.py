"""Bad input (spec §7): layouts and records a user hands in are checked before anything is built.

Each failure is one line naming what is wrong: a line that is not a record, non-finite or inverted
boxes, boxes more than 1 px outside the image (within 1 px they are clipped), likely xywh boxes (named
`--bbox-format`), masks of the wrong size (image and object id), duplicate object ids.
"""

from __future__ import annotations

import math

from proceedings.core.errors import ProceedingsError

BBOX_FORMATS = ("xyxy", "xywh")
XYWH_SHARE = 0.2  # more than this share of inverted boxes looks like xywh


def to_xyxy(box, bbox_format: str) -> list[float]:
    if bbox_format not in BBOX_FORMATS:
        raise ProceedingsError(f"unknown --bbox-format '{bbox_format}'; choose xyxy or xywh")
    x, y, a, b = (float(v) for v in box)
    return [x, y, x + a, y + b] if bbox_format == "xywh" else [x, y, a, b]


def check_boxes(image_id: str, boxes: list, width: int, height: int, bbox_format: str = "xyxy") -> list[list[float]]:
    """The boxes as xyxy, clipped by at most 1 px; raises on anything else."""
    converted = []
    for k, box in enumerate(boxes):
        if len(box) != 4 or not all(isinstance(v, (int, float)) and math.isfinite(v) for v in box):
            raise ProceedingsError(f"image {image_id}: box {k} {box} is not four finite numbers")
        converted.append(to_xyxy(box, bbox_format))
    inverted = [k for k, (x1, y1, x2, y2) in enumerate(converted) if x2 <= x1 or y2 <= y1]
    if bbox_format == "xyxy" and converted and len(inverted) > XYWH_SHARE * len(converted):
        raise ProceedingsError(f"image {image_id}: {len(inverted)} of {len(converted)} boxes have x2 <= x1 or y2 <= y1; "
                               "they look like xywh: pass --bbox-format xywh (train-l2i, sample), or "
                               "convert them to xyxy for the verbs that read records as written")
    if inverted:
        raise ProceedingsError(f"image {image_id}: box {inverted[0]} {converted[inverted[0]]} is inverted (x2 <= x1 or y2 <= y1)")
    clipped = []
    for k, (x1, y1, x2, y2) in enumerate(converted):
        if x1 < -1 or y1 < -1 or x2 > width + 1 or y2 > height + 1:
            raise ProceedingsError(f"image {image_id}: box {k} {[x1, y1, x2, y2]} lies more than 1 px outside the "
                                   f"{width}x{height} image")
        clipped.append([max(x1, 0.0), max(y1, 0.0), min(x2, float(width)), min(y2, float(height))])
    return clipped


def check_objects(record: dict) -> None:
    """Unique ids and masks of the image's size."""
    seen = set()
    for obj in record["objects"]:
        if obj["id"] in seen:
            raise ProceedingsError(f"image {record['image_id']}: duplicate object id {obj['id']}")
        seen.add(obj["id"])
        for key in ("mask_visible", "mask_amodal"):
            mask = obj.get(key)
            if mask and list(mask["size"]) != [record["height"], record["width"]]:
                raise ProceedingsError(f"image {record['image_id']}, object {obj['id']}: {key} is "
                                       f"{mask['size'][1]}x{mask['size'][0]}, the image {record['width']}x{record['height']}")


def check_layout(record, where: str, bbox_format: str = "xyxy") -> list[list[float]]:
    """A record as the spec writes it (image_id, a positive width and height, objects with id and bbox), then
    its ids, masks and boxes; returns the boxes as xyxy. `where` names the record (file and line)."""
    size_ok = isinstance(record, dict) and all(isinstance(record.get(k), int) and record[k] > 0 for k in ("width", "height"))
    objects = record.get("objects") if isinstance(record, dict) else None
    if not (size_ok and "image_id" in record and isinstance(objects, list)
            and all(isinstance(o, dict) and "id" in o and isinstance(o.get("bbox"), list) for o in objects)):
        raise ProceedingsError(f"{where} is not an OverLay++ record (it needs image_id, a positive width and height, "
                               "and objects with id and bbox)")
    check_objects(record)
    return check_boxes(record["image_id"], [o["bbox"] for o in objects], record["width"], record["height"], bbox_format)
