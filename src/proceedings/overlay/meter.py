"""The OverLayBench-style meter on frozen probes (spec §5 E2): mIoU, O-mIoU, SR_E, SR_R per layout.

- mIoU: per object, the pixels inside its box that the segmenter labels with its colour, IoU with its
  true visible mask (pixels of other same-coloured objects left out of both).
- O-mIoU: per valid overlap, in the part of the true region where one of the pair is on top (a third
  object may cover the rest), the pixels labelled with the front object's colour, IoU with that part.
- SR_E: the crop classifier names the object's colour (and, reported beside it, its shape).
- SR_R: in that part of the region, the front object's colour wins more pixels than the back one's.
A reader of the ground truth scores 1 on every metric (tests/overlay/test_meter.py).
Only valid overlaps of two differently coloured objects are relations (same colours cannot be told apart).
"""

from __future__ import annotations

import numpy as np
import torch

from proceedings.overlay.dataset import Example, colour_class
from proceedings.overlay.overlaps import box_mask
from proceedings.overlay.probes import Probes
from proceedings.overlay.sprites import COLOUR_NAMES, SHAPES

METRICS = ("miou", "o_miou", "sr_e", "sr_e_shape", "sr_r")


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    union = (a | b).sum()
    return float((a & b).sum() / union) if union else 1.0


def measure(images: torch.Tensor, examples: list[Example], probes: Probes) -> dict[str, np.ndarray]:
    """Per-layout metric arrays (NaN where a layout has no object or no relation)."""
    size = images.shape[-1]
    classes = probes.segment(images).numpy()  # (N, H, W)
    image_of = [k for k, e in enumerate(examples) for _ in e.scene.sprites]
    boxes = torch.tensor(np.array([b for e in examples for b in e.boxes], np.float32).reshape(-1, 4) / size)
    colour, shape = (probes.classify(images, torch.tensor(image_of), boxes) if image_of
                     else (torch.zeros(0, dtype=torch.long),) * 2)
    out = {name: np.full(len(examples), np.nan) for name in METRICS}
    cursor = 0
    for k, example in enumerate(examples):
        sprites = example.scene.sprites
        if sprites:
            ious, right_colour, right_shape = [], [], []
            for j, sprite in enumerate(sprites):
                twins = np.zeros((size, size), bool)  # other objects of the same colour
                for other, o in enumerate(sprites):
                    if other != j and o.colour == sprite.colour:
                        twins |= example.rendering.visible[other]
                predicted = box_mask(example.boxes[j], (size, size)) & (classes[k] == colour_class(sprite.colour)) & ~twins
                ious.append(_iou(predicted, example.rendering.visible[j]))
                right_colour.append(int(colour[cursor + j]) == COLOUR_NAMES.index(sprite.colour))
                right_shape.append(int(shape[cursor + j]) == SHAPES.index(sprite.shape))
            out["miou"][k], out["sr_e"][k], out["sr_e_shape"][k] = np.mean(ious), np.mean(right_colour), np.mean(right_shape)
            cursor += len(sprites)
        if example.pairs:
            o_ious, wins = [], []
            for pair in example.pairs:
                back = pair.j if pair.front == pair.i else pair.i
                front_class, back_class = colour_class(sprites[pair.front].colour), colour_class(sprites[back].colour)
                shown = pair.region & (example.rendering.visible[pair.i] | example.rendering.visible[pair.j])
                if not shown.any():
                    continue
                o_ious.append(_iou(shown & (classes[k] == front_class), shown & example.rendering.visible[pair.front]))
                wins.append((classes[k][shown] == front_class).sum() > (classes[k][shown] == back_class).sum())
            if o_ious:
                out["o_miou"][k], out["sr_r"][k] = np.mean(o_ious), np.mean(wins)
    return out


def summarise(per_layout: dict[str, np.ndarray], keep: np.ndarray | None = None) -> dict[str, float]:
    """Means over the layouts in `keep` (all by default), NaNs (no relation) skipped."""
    keep = np.ones(len(next(iter(per_layout.values()))), bool) if keep is None else keep
    return {name: float(np.nanmean(values[keep])) if np.isfinite(values[keep]).any() else float("nan")
            for name, values in per_layout.items()}


def paired_bootstrap(ours: np.ndarray, theirs: np.ndarray, reps: int = 2000, seed: int = 0) -> list[float]:
    """95 % interval of mean(ours - theirs) over layouts where both are defined (resampling layouts)."""
    diff = (ours - theirs)[np.isfinite(ours) & np.isfinite(theirs)]
    if len(diff) < 2:
        return [float("nan"), float("nan")]
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(len(diff), size=(reps, len(diff)))].mean(1)
    return [float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))]
