"""The outline check behind convert's fallback: it refuses flips and self-intersections, never the real font's corners."""

import numpy as np

from proceedings.niv.outline_check import COLLAPSED, FLIPPED, SELF_INTERSECTION, defects

SQUARE = np.array([[0, 0], [0, 100], [100, 100], [100, 0]], float)  # clockwise, on-curve only
ON = np.ones(4)
ONE_CONTOUR = np.zeros(4, int)


def test_a_moved_but_intact_square_passes():
    assert defects(SQUARE, SQUARE * 1.5 + 20, ON, ONE_CONTOUR) == set()


def test_a_mirrored_square_is_flipped_and_a_flattened_one_collapsed():
    assert FLIPPED in defects(SQUARE, SQUARE * [-1, 1], ON, ONE_CONTOUR)
    assert COLLAPSED in defects(SQUARE, SQUARE * [1, 0], ON, ONE_CONTOUR)


def test_a_bow_tie_is_a_new_self_intersection():
    bow_tie = np.array([[0, 0], [0, 100], [100, 0], [100, 100]], float)
    assert SELF_INTERSECTION in defects(SQUARE, bow_tie, ON, ONE_CONTOUR)


def test_the_real_open_sans_corners_pass_the_check(open_sans_ascii):
    from fontTools.ttLib import TTFont

    from proceedings.niv.experiment import real_outline_refusals

    refused = real_outline_refusals(TTFont(open_sans_ascii))
    assert refused["glyphs"] > 80 and refused["refused"] == 0, refused


def test_a_refused_deformation_is_shrunk_until_it_passes():
    from proceedings.niv.outline_check import shrink_until_sound

    mirrored = SQUARE * [-1, 1] - SQUARE  # at t = 1 the square turns inside out; at t = 1/2 it is a line
    shrunk, t = shrink_until_sound(SQUARE, mirrored, ON, ONE_CONTOUR)
    assert t == 0.25 and not defects(SQUARE, SQUARE + shrunk, ON, ONE_CONTOUR)
