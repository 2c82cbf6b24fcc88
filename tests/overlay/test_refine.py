"""Mask refinement: a segmenter mask off by a pixel snaps back to (nearly) the object's exact visible mask."""

import numpy as np
from scipy.ndimage import binary_dilation, binary_erosion

from proceedings.overlay.records import rle_decode
from proceedings.overlay.refine import refine_masks
from proceedings.overlay.synth import make_record


def test_masks_eroded_or_dilated_by_one_pixel_snap_back_to_the_visible_masks():
    record, image = make_record("dense", 3, 0, 64)
    exact = [rle_decode(o["mask_visible"]) for o in record["objects"]]
    colours = [o["label"].split()[0] for o in record["objects"]]
    noisy = [binary_dilation(m) if k % 2 else binary_erosion(m) for k, m in enumerate(exact)]
    refined = refine_masks(image, noisy)
    wrong_before = wrong_after = 0
    for colour, truth, before, after in zip(colours, exact, noisy, refined):
        if colours.count(colour) == 1:  # a same-coloured neighbour cannot be told apart by colour
            wrong_before, wrong_after = wrong_before + (before != truth).sum(), wrong_after + (after != truth).sum()
    assert wrong_after <= 0.15 * wrong_before and wrong_before > 20  # erosion loses a thin part for good


def test_refinement_leaves_exact_masks_of_distinct_colours_unchanged():
    record, image = make_record("sparse", 3, 1, 64)
    exact = [rle_decode(o["mask_visible"]) for o in record["objects"]]
    assert all(np.array_equal(a, b) for a, b in zip(refine_masks(image, exact), exact))
