"""OverLayScore: 0 for disjoint boxes, order-invariant, IoU for identical captions, monotone in overlap."""

import numpy as np

from proceedings.overlay.overlaps import iou
from proceedings.overlay.score import overlayscore
from proceedings.overlay.text_encoder import BowEncoder

ENC = BowEncoder()


def test_disjoint_boxes_score_zero():
    assert overlayscore([[0, 0, 10, 10], [20, 20, 30, 30]], ENC.encode(["a red circle", "a red circle"])) == 0.0


def test_score_is_invariant_to_object_order():
    boxes = [[0, 0, 10, 10], [5, 5, 15, 15], [8, 0, 20, 9]]
    captions = ["a red circle", "a large blue star with a striped surface", "a green ring"]
    order = [2, 0, 1]
    forward = overlayscore(boxes, ENC.encode(captions))
    shuffled = overlayscore([boxes[k] for k in order], ENC.encode([captions[k] for k in order]))
    assert abs(forward - shuffled) < 1e-9


def test_identical_captions_give_the_box_iou():
    boxes = [[0, 0, 10, 10], [5, 0, 15, 10]]
    assert abs(overlayscore(boxes, ENC.encode(["a red circle"] * 2)) - iou(*boxes)) < 1e-6


def test_score_grows_as_a_box_slides_onto_another():
    captions = ENC.encode(["a red circle", "a red square"])
    scores = [overlayscore([[0, 0, 10, 10], [x, 0, x + 10, 10]], captions) for x in np.arange(10, -1, -1)]
    assert all(b > a for a, b in zip(scores, scores[1:]))
