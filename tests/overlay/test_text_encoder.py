"""Caption encoders: the recorded bag of words keeps an object's own words apart from its relations;
MiniLM loads offline from its package (slow: it imports transformers and loads 22.7M parameters)."""

import numpy as np
import pytest

from proceedings.overlay.text_encoder import BowEncoder


def cos(a, b):
    return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))


def test_bag_of_words_tells_the_object_from_the_neighbour_it_names():
    enc = BowEncoder()
    red_behind_blue, blue_behind_red = enc.encode(["a red circle, partially hidden behind the blue square",
                                                   "a blue square, partially hidden behind the red circle"])
    assert cos(red_behind_blue, blue_behind_red) < 0.9
    assert enc.encode(["a red circle"]).shape == (1, enc.dim)


@pytest.mark.slow
def test_minilm_embeds_similar_captions_closer_than_different_ones():
    from proceedings.overlay.text_encoder import text_encoder

    enc = text_encoder("minilm")
    a, b, c = enc.encode(["a small red circle", "a little red circle", "a large blue star with a striped surface"])
    assert enc.dim == 384 and cos(a, b) > cos(a, c)
