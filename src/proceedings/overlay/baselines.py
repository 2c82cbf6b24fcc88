"""What OverLay++ is compared against.

- E1, annotation: the naive overlap rule a box-only data set affords (spec §5): the region is the box
  intersection and the smaller box is in front.
- E2, training data: the same layout-to-image model trained on the `sparse` (LayoutSAM-like) profile
  with short captions; it is the same code as the method (l2i.py), only the data differ
  (experiment.py), so it has no module of its own.
"""

from __future__ import annotations

import numpy as np

from proceedings.overlay.overlaps import box_mask, intersection


def naive_overlap(box_a, box_b, shape: tuple[int, int]) -> tuple[np.ndarray, int]:
    """(region mask, 0 if box a is in front else 1): box intersection, smaller box in front."""
    inter = intersection(box_a, box_b)
    region = box_mask(inter, shape) if inter is not None else np.zeros(shape, bool)
    area = lambda b: (b[2] - b[0]) * (b[3] - b[1])  # noqa: E731
    return region, 0 if area(box_a) <= area(box_b) else 1
