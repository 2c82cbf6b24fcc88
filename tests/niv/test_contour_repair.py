"""Contour repair: smoothing removes point-to-point noise, keeps smooth motion, never touches phantom points."""

import numpy as np

from proceedings.niv.contour_repair import repair, smooth_along_contours
from proceedings.niv.outline_check import defects

SQUARE = np.array([[0, 0], [0, 100], [100, 100], [100, 0]], float)  # clockwise, on-curve only
TWO_SQUARES_AND_PHANTOMS = np.array([0, 0, 0, 0, 1, 1, 1, 1, -1, -1, -1, -1])


def test_a_translation_is_kept_and_zigzag_noise_removed_in_one_pass():
    shift = np.tile([3.0, -2.0], (12, 1))
    assert np.allclose(smooth_along_contours(shift, TWO_SQUARES_AND_PHANTOMS, 3), shift)
    zigzag = np.zeros((12, 2))
    zigzag[:8, 0] = [1, -1, 1, -1, 1, -1, 1, -1]
    assert np.allclose(smooth_along_contours(zigzag, TWO_SQUARES_AND_PHANTOMS, 1)[:8], 0)


def test_contours_do_not_mix_and_phantom_points_are_untouched():
    d = np.zeros((2, 12, 2))  # two corners
    d[:, :4] = 5.0
    d[:, 8:] = np.arange(8).reshape(4, 2)
    out = smooth_along_contours(d, TWO_SQUARES_AND_PHANTOMS, 4)
    assert np.allclose(out[:, :4], 5.0) and np.allclose(out[:, 4:8], 0.0)
    assert np.allclose(out[:, 8:], d[:, 8:])
    assert np.allclose(smooth_along_contours(d, TWO_SQUARES_AND_PHANTOMS, 0), d)


def test_repair_keeps_the_first_level_that_passes_and_gives_up_beyond_max_passes():
    on, contour = np.ones(4), np.zeros(4, int)
    noisy = np.array([[[0, 0], [0, 0], [-150, 0], [0, 0]]], float)  # one corner: a point pulled across the square
    assert defects(SQUARE, SQUARE + noisy[0], on, contour)
    fixed, passes = repair(SQUARE, noisy, on, contour, max_passes=8)
    assert passes >= 1 and not defects(SQUARE, SQUARE + fixed[0], on, contour)
    assert np.allclose(fixed, smooth_along_contours(noisy, contour, passes))
    assert repair(SQUARE, noisy, on, contour, max_passes=passes - 1) is None


def test_repair_works_per_corner_and_keeps_sound_corners_as_predicted():
    on, contour = np.ones(4), np.zeros(4, int)
    noisy = np.array([[0, 0], [0, 0], [-150, 0], [0, 0]], float)  # refused
    sound = np.array([[4, 0], [-4, 0], [4, 0], [-4, 0]], float)  # passes, but smoothing would change it
    fixed, passes = repair(SQUARE, np.stack([noisy, sound]), on, contour, max_passes=8)
    assert np.array_equal(fixed[1], sound)
    assert np.allclose(fixed[0], smooth_along_contours(noisy, contour, passes))
