"""The annotate pipeline against exact truth, and the naive rule it must beat."""

import numpy as np
import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.overlay.annotation_quality import annotation_report
from proceedings.overlay.backends import load_backends
from proceedings.overlay.pipeline import Backends, annotate_image, depth_order
from proceedings.overlay.records import scene_record
from proceedings.overlay.render import Background, render
from proceedings.overlay.sprites import Sprite
from proceedings.overlay.synth import make_record
from proceedings.overlay.text_encoder import BowEncoder


def big_square_in_front_of_small_circle(size=64):
    sprites = [Sprite("square", "red", "solid", "large", 0.45, 0.5, 0.2, 0.0, 1),
               Sprite("circle", "blue", "solid", "small", 0.62, 0.5, 0.12, 0.0, 0)]
    background = Background("flat", 0, 0, 1, 0.5)
    rendering = render(sprites, background, size)
    record = scene_record("known", sprites, background, rendering, "rich", BowEncoder(), 0, "dense")
    return record, (rendering.image * 255).astype(np.uint8)


def test_a_big_box_in_front_of_a_small_one_fools_the_naive_rule_not_the_pipeline():
    truth, image = big_square_in_front_of_small_circle()
    assert [o["front"] for o in truth["overlaps"]] == [0] and truth["overlaps"][0]["valid"]
    predicted = annotate_image(image, "known", truth, Backends("oracle", "oracle"))
    report = annotation_report([predicted], [truth])
    assert report["scored_pairs"] == 1
    assert report["pipeline"]["front_accuracy"] == 1.0 and report["naive"]["front_accuracy"] == 0.0
    assert report["pipeline"]["region_iou"] > 0.95 > report["naive"]["region_iou"]


@pytest.mark.slow
def test_noisy_oracle_pipeline_recovers_fronts_and_regions_better_than_the_naive_rule():
    truth, predicted = [], []
    for k in range(12):
        record, image = make_record("dense", 3, k, 64)
        truth.append(record)
        predicted.append(annotate_image(image, record["image_id"], record, Backends("oracle-noisy", "oracle-noisy"), seed=1))
    report = annotation_report(predicted, truth)
    assert report["scored_pairs"] > 30
    assert report["pipeline"]["front_accuracy"] >= 0.9 > report["naive"]["front_accuracy"]
    assert report["pipeline"]["region_iou"] > report["naive"]["region_iou"]


def test_depth_order_is_a_topological_sort_of_the_front_relation():
    ranks = depth_order(3, [(2, 0), (0, 1)], [0.5, 0.5, 0.5])  # 2 in front of 0, 0 in front of 1
    assert ranks[1] < ranks[0] < ranks[2]


@pytest.mark.slow  # imports transformers
def test_a_hugging_face_detector_that_is_not_on_disk_fails_at_start_up():
    with pytest.raises(ProceedingsError, match="not found locally"):
        load_backends("IDEA-Research/grounding-dino-base", "oracle")
