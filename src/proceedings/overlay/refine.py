"""Mask refinement by colour consistency (spec §2.2 step 4, after segmentation; a stand-in for the
boundary refinement of SAM-HQ or a dense CRF).

A segmenter's mask is right in its interior and off by a pixel or so at its boundary. Each object's
colour is read from its mask's interior (median chromaticity, rgb / (r + g + b), which a texture's
shading leaves unchanged); the refined mask keeps the pixels of that colour within BAND pixels of the
segmenter's mask. Grey (background) pixels and other colours are cut off, missing boundary pixels of
the object's colour are added back unless another object's mask already holds them (a neighbour of
the same colour cannot be told apart by colour).
"""

from __future__ import annotations

import numpy as np

BAND = 2  # pixels around the segmenter's mask that may be added or removed
MATCH = 0.06  # chromaticity distance within which a pixel has the object's colour
GREY = 0.04  # pixels this close to (1/3, 1/3, 1/3) are background, never an object's


def chromaticity(image: np.ndarray) -> np.ndarray:
    """(h, w, 3) rgb -> (h, w, 3) rgb / (r + g + b): invariant to brightness (shading, texture)."""
    return image / np.maximum(image.sum(axis=2, keepdims=True), 1e-6)


def object_colour(chroma: np.ndarray, mask: np.ndarray) -> np.ndarray | None:
    """Median chromaticity of the mask's non-grey pixels (its interior first), or None if it has none."""
    from scipy.ndimage import binary_erosion

    for part in (binary_erosion(mask), mask):
        values = chroma[part]
        values = values[np.abs(values - 1 / 3).max(axis=1) > GREY]
        if len(values):
            return np.median(values, axis=0)
    return None


def refine_masks(image: np.ndarray, masks: list[np.ndarray]) -> list[np.ndarray]:
    """Each mask snapped to the pixels of its own colour within BAND pixels of it (see module doc)."""
    from scipy.ndimage import binary_dilation

    chroma = chromaticity(image.astype(np.float64))
    colours = [object_colour(chroma, m) if m.any() else None for m in masks]
    matches = [np.abs(chroma - c).sum(axis=2) <= MATCH if c is not None else m for c, m in zip(colours, masks)]
    cleaned = [m & match for m, match in zip(masks, matches)]
    refined = []
    for k, (mask, match) in enumerate(zip(masks, matches)):
        held = np.zeros_like(mask)  # pixels another object's cleaned mask holds and this one's does not
        for j, other in enumerate(cleaned):
            if j != k:
                held |= other & ~mask
        mine = binary_dilation(mask, iterations=BAND) & match & ~held
        refined.append(mine if mine.any() else mask)
    return refined
