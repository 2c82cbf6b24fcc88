"""The evaluator's frozen probes (spec §5 E2), stand-ins for OverLayBench's VLM and CLIP.

Trained once on ground-truth renders only, then frozen: a pixel colour segmenter (background or one
of the eight colours per pixel) and a box-crop classifier (colour and shape of the object in a box).
Applied to ground-truth test renders they give the upper-bound row.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from proceedings.core.progress import progress_bar
from proceedings.overlay.sprites import COLOUR_NAMES, SHAPES

CROP = 12  # box crops are resampled to CROP x CROP


def crop_boxes(images: torch.Tensor, boxes: torch.Tensor) -> torch.Tensor:
    """(N, 3, H, W) images, (N, 4) normalised xyxy boxes -> (N, 3, CROP, CROP) bilinear crops."""
    x1, y1, x2, y2 = boxes.unbind(-1)
    theta = torch.zeros(len(boxes), 2, 3)
    theta[:, 0, 0], theta[:, 0, 2] = x2 - x1, x1 + x2 - 1
    theta[:, 1, 1], theta[:, 1, 2] = y2 - y1, y1 + y2 - 1
    grid = F.affine_grid(theta, (len(boxes), 3, CROP, CROP), align_corners=False)
    return F.grid_sample(images, grid, align_corners=False)


class PixelSegmenter(nn.Module):
    """Per-pixel logits over background + the eight colours (class c + 1 = COLOUR_NAMES[c])."""

    def __init__(self, width: int = 32) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, width, 3, padding=1), nn.ReLU(), nn.Conv2d(width, width, 3, padding=1),
                                 nn.ReLU(), nn.Conv2d(width, 1 + len(COLOUR_NAMES), 1))

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        return self.net(images)  # (N, 9, H, W)


class CropClassifier(nn.Module):
    """Colour and shape logits of the object a box crop shows."""

    def __init__(self, width: int = 32) -> None:
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(width, 2 * width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Flatten(), nn.Linear(2 * width * (CROP // 4) ** 2, 128), nn.ReLU())
        self.colour, self.shape = nn.Linear(128, len(COLOUR_NAMES)), nn.Linear(128, len(SHAPES))

    def forward(self, crops: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.features(crops)
        return self.colour(h), self.shape(h)


@dataclass
class ProbeData:
    """Ground-truth renders and per-object labels at the training resolution."""

    images: torch.Tensor  # (N, 3, H, W) in [-1, 1]
    pixel_labels: torch.Tensor  # (N, H, W) long: 0 background, c + 1 colour c
    object_image: torch.Tensor  # (M,) long: which image each object is in
    object_boxes: torch.Tensor  # (M, 4) normalised xyxy
    object_colour: torch.Tensor  # (M,) long
    object_shape: torch.Tensor  # (M,) long


@dataclass
class Probes:
    segmenter: PixelSegmenter
    classifier: CropClassifier

    @torch.no_grad()
    def segment(self, images: torch.Tensor) -> torch.Tensor:
        """(N, H, W) class per pixel."""
        return self.segmenter.eval()(images).argmax(1)

    @torch.no_grad()
    def classify(self, images: torch.Tensor, image_index: torch.Tensor, boxes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(colour, shape) predictions for each box of `images[image_index]`."""
        colour, shape = self.classifier.eval()(crop_boxes(images[image_index], boxes))
        return colour.argmax(1), shape.argmax(1)


def train_probes(data: ProbeData, steps: int = 300, batch: int = 64, lr: float = 3e-3, seed: int = 0) -> Probes:
    """Fit both probes on ground truth (Adam), then freeze them."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    segmenter, classifier = PixelSegmenter(), CropClassifier()
    opt_seg = torch.optim.Adam(segmenter.parameters(), lr=lr)
    opt_cls = torch.optim.Adam(classifier.parameters(), lr=lr)
    for _ in progress_bar(range(steps), desc="train probes", unit="step"):
        pick = torch.as_tensor(rng.integers(len(data.images), size=batch))
        loss = F.cross_entropy(segmenter(data.images[pick]), data.pixel_labels[pick])
        opt_seg.zero_grad()
        loss.backward()
        opt_seg.step()
        objects = torch.as_tensor(rng.integers(len(data.object_boxes), size=batch))
        colour, shape = classifier(crop_boxes(data.images[data.object_image[objects]], data.object_boxes[objects]))
        loss = F.cross_entropy(colour, data.object_colour[objects]) + F.cross_entropy(shape, data.object_shape[objects])
        opt_cls.zero_grad()
        loss.backward()
        opt_cls.step()
    return Probes(segmenter.requires_grad_(False), classifier.requires_grad_(False))
