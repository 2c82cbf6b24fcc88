"""Training tensors from record files on disk (the `train-l2i` and `sample` verbs).

Images are read beside the JSONL, resized to the training resolution, and every record's fields, boxes
and masks are checked first (validate.py, by read_records), so bad input stops with one line before
training starts. Unreadable images are skipped and counted.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.overlay.flow import LayoutSet
from proceedings.overlay.records import read_records
from proceedings.overlay.validate import check_boxes

MAX_OBJECTS = 16
log = logging.getLogger(__name__)


def layouts_from_records(path: Path | str, size: int, encoder, bbox_format: str = "xyxy") -> LayoutSet:
    from PIL import Image

    path = Path(path)
    records = read_records(path, bbox_format)  # checked: fields, ids, masks, boxes
    root = path.parent if path.is_file() else path
    images, text, boxes, present, skipped = [], [], [], [], 0
    for record in records:
        xyxy = check_boxes(record["image_id"], [o["bbox"] for o in record["objects"]], record["width"],
                           record["height"], bbox_format)
        try:
            with Image.open(root / record["file"]) as image:
                pixels = np.asarray(image.convert("RGB").resize((size, size), Image.BILINEAR), np.float32) / 127.5 - 1
        except (OSError, ValueError):
            skipped += 1
            continue
        m = min(len(xyxy), MAX_OBJECTS)
        row_text = np.zeros((MAX_OBJECTS, encoder.dim), np.float32)
        row_boxes = np.zeros((MAX_OBJECTS, 4), np.float32)
        if m:
            row_text[:m] = encoder.encode([o["caption"] for o in record["objects"][:m]])
            row_boxes[:m] = np.asarray(xyxy[:m]) / [record["width"], record["height"], record["width"], record["height"]]
        images.append(pixels.transpose(2, 0, 1))
        text.append(row_text)
        boxes.append(row_boxes)
        present.append(np.arange(MAX_OBJECTS) < m)
    if skipped:
        log.warning("%d unreadable images skipped", skipped)
    if not images:
        raise ProceedingsError(f"no readable image among the {len(records)} records of '{path}'")
    return LayoutSet(torch.tensor(np.stack(images)), torch.tensor(np.stack(text)), torch.tensor(np.stack(boxes)),
                     torch.tensor(np.stack(present)))
