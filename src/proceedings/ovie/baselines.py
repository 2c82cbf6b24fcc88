"""What OVIE is compared against (spec §3, issue 29).

- copy-source: the source image as the prediction (the floor).
- depth + splat + Telea inpaint: the warp-and-inpaint family, which needs a depth estimator at
  inference; it uses the same frozen estimator OVIE trains with (with `oracle` depth it is an
  upper-bound row, labelled so). Its three stages are separate functions so the speed bench times each.
- MV: the same network trained on true A pairs (built by the experiment with the shared Trainer).
"""

from __future__ import annotations

import numpy as np
import torch

from proceedings.ovie.geometry import lift_with_sky, normals_from_points, splat

TELEA_RADIUS = 3  # px, OpenCV's usual inpainting radius


def copy_source(pairs: dict[str, np.ndarray]) -> torch.Tensor:
    return torch.as_tensor(pairs["rgb"]).clone()


def lift(estimator, views: dict, K: np.ndarray) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Stage 1: the estimator's depth lifted to points (sky far away, as 3D-photo methods do), validity and normals."""
    depth, valid = estimator.estimate(views)
    points = lift_with_sky(depth.float(), valid, K)
    return points, torch.ones_like(valid), normals_from_points(points)


def warp(rgb: torch.Tensor, points: torch.Tensor, valid: torch.Tensor, normals: torch.Tensor, K: np.ndarray,
         T: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Stage 2: splat into the target camera; returns the warped image and its visibility."""
    return splat(rgb, points, valid, K, T.float(), normals=normals)


def inpaint(warped: torch.Tensor, visible: torch.Tensor) -> torch.Tensor:
    """Stage 3: OpenCV's Telea inpainting of every pixel the warp did not reach."""
    import cv2

    out = []
    for image, seen in zip(warped, visible):
        rgb8 = (image.permute(1, 2, 0).numpy() * 255).round().astype(np.uint8)
        filled = cv2.inpaint(rgb8, (~seen).numpy().astype(np.uint8), TELEA_RADIUS, cv2.INPAINT_TELEA)
        out.append(torch.as_tensor(filled).permute(2, 0, 1).float() / 255)
    return torch.stack(out)


def warp_inpaint(estimator, pairs: dict[str, np.ndarray], K: np.ndarray) -> torch.Tensor:
    """The whole pipeline on test pairs: depth -> splat with the true pose -> Telea."""
    points, valid, normals = lift(estimator, pairs, K)
    warped, visible = warp(torch.as_tensor(pairs["rgb"]), points, valid, normals, K, torch.as_tensor(pairs["T"]))
    return inpaint(warped, visible)

