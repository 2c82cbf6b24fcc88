"""The real-data check of the warp: Middlebury's motorcycle stereo pair with true disparity (spec §8.2).

scikit-image ships the rectified pair and its ground-truth disparity. For a rectified pair with focal
length f and baseline b, depth is z = f b / d and the right camera is the left one moved b along x,
so splatting the left image with that depth into the moved camera gives x_r = x_l - d, the nearer
(larger-disparity) point winning the z-buffer: the same `splat` that makes OVIE's pseudo-targets.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from proceedings.ovie.geometry import splat, unproject

FOCAL = 1000.0  # any value: depth and baseline cancel in x_r = x_l - d
BASELINE = 1.0


@dataclass
class StereoCheck:
    warp_psnr: float  # warped left vs right, on the pixels the warp reaches
    copy_psnr: float  # left vs right on the same pixels
    visible_fraction: float


def motorcycle() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(left (3,H,W), right (3,H,W)) in [0, 1] and the left disparity (H, W) with inf where unknown."""
    from skimage import data

    left, right, disparity = data.stereo_motorcycle()
    as_chw = lambda im: np.moveaxis(im.astype(np.float32) / 255.0, -1, 0)  # noqa: E731
    return as_chw(left), as_chw(right), disparity.astype(np.float64)


def warp_with_disparity(left: np.ndarray, disparity: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Forward-warp the left image to the right camera through `splat`; returns (image, visibility)."""
    H, W = disparity.shape
    valid = np.isfinite(disparity) & (disparity > 0)
    depth = np.where(valid, FOCAL * BASELINE / np.where(valid, disparity, 1.0), 0.0)
    K = np.array([[FOCAL, 0, W / 2], [0, FOCAL, H / 2], [0, 0, 1.0]])
    T = torch.eye(4, dtype=torch.float64)[None]
    T[0, 0, 3] = -BASELINE  # the right camera sits b to the right: points move -b in x
    points = unproject(torch.as_tensor(depth)[None], K)
    out, visible = splat(torch.as_tensor(left, dtype=torch.float64)[None], points, torch.as_tensor(valid)[None], K, T)
    return out[0].numpy(), visible[0].numpy()


def psnr_on(a: np.ndarray, b: np.ndarray, mask: np.ndarray) -> float:
    mse = float(((a - b) ** 2)[:, mask].mean())
    return 10 * np.log10(1.0 / max(mse, 1e-12))


def stereo_check() -> StereoCheck:
    """Warp vs copy PSNR against the true right view, on the pixels the warp reaches."""
    left, right, disparity = motorcycle()
    warped, visible = warp_with_disparity(left, disparity)
    return StereoCheck(psnr_on(warped, right, visible), psnr_on(left, right, visible), float(visible.mean()))
