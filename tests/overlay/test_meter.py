"""The meter: a perfect reader of ground truth scores 1 everywhere; swapping the front colour breaks SR_R."""

import numpy as np
import torch

from proceedings.overlay.dataset import colour_class, make_examples
from proceedings.overlay.meter import measure, paired_bootstrap, summarise
from proceedings.overlay.sprites import COLOUR_NAMES, SHAPES
from proceedings.overlay.text_encoder import BowEncoder


class TruthReader:
    """Probes that read the generator's own labels instead of pixels."""

    def __init__(self, examples, swap_fronts=False):
        self.examples, self.swap = examples, swap_fronts

    def segment(self, images):
        maps = []
        for e in self.examples:
            classes = np.zeros(e.rendering.label_map.shape, np.int64)
            for k, sprite in enumerate(e.scene.sprites):
                classes[e.rendering.visible[k]] = colour_class(sprite.colour)
            if self.swap:
                for pair in e.pairs:
                    back = pair.j if pair.front == pair.i else pair.i
                    classes[pair.region] = colour_class(e.scene.sprites[back].colour)
            maps.append(classes)
        return torch.tensor(np.stack(maps))

    def classify(self, images, image_index, boxes):
        sprites = [s for e in self.examples for s in e.scene.sprites]
        return (torch.tensor([COLOUR_NAMES.index(s.colour) for s in sprites]),
                torch.tensor([SHAPES.index(s.shape) for s in sprites]))


def test_a_perfect_reader_scores_one_and_painting_the_back_object_in_front_breaks_relations():
    examples = make_examples("dense", 5, 12, 32, "rich", BowEncoder())
    images = torch.zeros(len(examples), 3, 32, 32)
    perfect = summarise(measure(images, examples, TruthReader(examples)))
    assert perfect == {"miou": 1.0, "o_miou": 1.0, "sr_e": 1.0, "sr_e_shape": 1.0, "sr_r": 1.0}
    swapped = summarise(measure(images, examples, TruthReader(examples, swap_fronts=True)))
    assert swapped["sr_r"] < 0.2 and swapped["o_miou"] < 0.2


def test_paired_bootstrap_interval_excludes_zero_only_for_a_real_gap():
    rng = np.random.default_rng(0)
    base = rng.uniform(size=200)
    low, high = paired_bootstrap(base + 0.1, base)
    assert 0.09 < low <= high < 0.11
    low, _ = paired_bootstrap(base + rng.normal(0, 0.3, 200), base)
    assert low < 0
