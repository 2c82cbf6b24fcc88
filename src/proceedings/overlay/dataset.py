"""From scenes to tensors: training sets, benchmark layouts with exact truth, and probe data (spec §5 E2).

Every scene is rendered at the training resolution from its resolution-free layout, so the model's
images and the evaluator's truth (visible and amodal masks, valid overlaps) are exact at that size.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from proceedings.overlay.captions import short_caption
from proceedings.overlay.flow import LayoutSet
from proceedings.overlay.overlaps import Pair, find_pairs, tight_box
from proceedings.overlay.probes import ProbeData
from proceedings.overlay.records import add_overlayscores, scene_record
from proceedings.overlay.render import Rendering
from proceedings.overlay.sprites import COLOUR_NAMES, SHAPES
from proceedings.overlay.synth import Scene, make_scene


@dataclass
class Example:
    """One layout at the training resolution with everything the model and the meter need."""

    scene: Scene
    rendering: Rendering
    boxes: list[list[int]]  # pixel xyxy at this size
    captions: list[str]
    pairs: list[Pair]  # valid overlaps whose two objects differ in colour (the meter's relations)
    overlayscore: float


def make_examples(profile: str, seed: int, count: int, size: int, caption: str, encoder, start: int = 0) -> list[Example]:
    """`count` scenes of `profile` from index `start`, captions as the record builds them (short or rich)."""
    scenes = [make_scene(profile, seed, index) for index in range(start, start + count)]
    renderings = [scene.render(size) for scene in scenes]
    records = [scene_record(f"{profile}-{index}", scene.sprites, scene.background, rendering, caption, None, seed, profile)
               for index, scene, rendering in zip(range(start, start + count), scenes, renderings)]
    add_overlayscores(records, encoder)
    examples = []
    for scene, rendering, record in zip(scenes, renderings, records):
        boxes = [o["bbox"] for o in record["objects"]]
        ranks = [o["depth_rank"] for o in record["objects"]]
        pairs = [p for p in find_pairs(list(range(len(boxes))), boxes, rendering.amodal, rendering.visible, ranks, size)
                 if p.valid and scene.sprites[p.i].colour != scene.sprites[p.j].colour]
        examples.append(Example(scene, rendering, boxes, [o["caption"] for o in record["objects"]], pairs,
                                record["stats"]["overlayscore"]))
    return examples


def with_short_captions(examples: list[Example]) -> list[Example]:
    """The same layouts captioned LayoutSAM-style (the captions ablation)."""
    return [Example(e.scene, e.rendering, e.boxes, [short_caption(s.to_dict()) for s in e.scene.sprites], e.pairs,
                    e.overlayscore) for e in examples]


def layout_set(examples: list[Example], encoder, max_objects: int) -> LayoutSet:
    """Tensors for the model: images in [-1, 1], caption embeddings, normalised boxes, presence."""
    n, size = len(examples), examples[0].rendering.image.shape[0]
    images = np.stack([e.rendering.image for e in examples]).transpose(0, 3, 1, 2) * 2 - 1
    text = np.zeros((n, max_objects, encoder.dim), np.float32)
    boxes = np.zeros((n, max_objects, 4), np.float32)
    present = np.zeros((n, max_objects), bool)
    embeddings, cursor = encoder.encode([c for e in examples for c in e.captions[:max_objects]]), 0
    for k, e in enumerate(examples):
        m = min(len(e.boxes), max_objects)
        if m:
            text[k, :m] = embeddings[cursor:cursor + m]
            cursor += m
            boxes[k, :m] = np.asarray(e.boxes[:m], np.float32) / size
            present[k, :m] = True
    return LayoutSet(torch.tensor(images, dtype=torch.float32), torch.tensor(text), torch.tensor(boxes),
                     torch.tensor(present))


def colour_class(name: str) -> int:
    """The segmenter's class of a colour (0 is background)."""
    return 1 + COLOUR_NAMES.index(name)


def probe_data(examples: list[Example]) -> ProbeData:
    """Ground-truth renders, pixel colour classes and per-object (box, colour, shape) labels."""
    size = examples[0].rendering.image.shape[0]
    images = np.stack([e.rendering.image for e in examples]).transpose(0, 3, 1, 2) * 2 - 1
    pixels = np.zeros((len(examples), size, size), np.int64)
    image_of, boxes, colours, shapes = [], [], [], []
    for k, e in enumerate(examples):
        for j, sprite in enumerate(e.scene.sprites):
            pixels[k][e.rendering.visible[j]] = colour_class(sprite.colour)
            image_of.append(k)
            boxes.append(np.asarray(tight_box(e.rendering.amodal[j]), np.float32) / size)
            colours.append(COLOUR_NAMES.index(sprite.colour))
            shapes.append(SHAPES.index(sprite.shape))
    return ProbeData(torch.tensor(images, dtype=torch.float32), torch.tensor(pixels), torch.tensor(image_of),
                     torch.tensor(np.stack(boxes)), torch.tensor(colours), torch.tensor(shapes))

