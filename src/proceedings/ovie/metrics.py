"""Novel-view metrics: PSNR (all pixels, and apart on the disoccluded pixels), SSIM, paired bootstrap.

The disoccluded pixels of a test pair are those the exact warp of the source (true depth, true pose)
does not reach: what no warp can know and a model must invent.
"""

from __future__ import annotations

import numpy as np
import torch

from proceedings.ovie.geometry import splat


def psnr(pred: torch.Tensor, target: torch.Tensor, mask: torch.Tensor | None = None) -> np.ndarray:
    """(N,) PSNR in dB per image, over all pixels or the pixels of `mask (N, H, W)` (NaN where it is empty)."""
    error = ((pred - target) ** 2).mean(1)  # (N, H, W)
    if mask is None:
        mse = error.flatten(1).mean(1)
    else:
        m = mask.float()
        mse = (error * m).flatten(1).sum(1) / m.flatten(1).sum(1)
    return (10 * torch.log10(1.0 / mse.clamp_min(1e-10))).double().numpy()


def pooled_psnr(pred: torch.Tensor, target: torch.Tensor, mask: torch.Tensor) -> float:
    """PSNR over the union of `mask`'s pixels across the set (no per-image averaging of tiny holes)."""
    error = ((pred - target) ** 2).mean(1)[mask]
    return float(10 * torch.log10(1.0 / error.mean().clamp_min(1e-10))) if error.numel() else float("nan")


def ssim(pred: torch.Tensor, target: torch.Tensor) -> np.ndarray:
    """(N,) SSIM per image (pytorch-msssim, Gaussian window 7 so 32 px images fit)."""
    from pytorch_msssim import ssim as ms_ssim

    return ms_ssim(pred.float(), target.float(), data_range=1.0, size_average=False, win_size=7).double().numpy()


def disoccluded(pairs: dict[str, np.ndarray], K: np.ndarray) -> torch.Tensor:
    """(N, H, W) target pixels that the exact warp of the source (true depth, sky far away) does not reach."""
    from proceedings.ovie.baselines import lift
    from proceedings.ovie.depth import OracleDepth

    points, valid, normals = lift(OracleDepth(), pairs, K)
    _, visible = splat(torch.as_tensor(pairs["rgb"]), points, valid, K, torch.as_tensor(pairs["T"]).float(), normals=normals)
    return ~visible


def scores(pred: torch.Tensor, pairs: dict[str, np.ndarray], holes: torch.Tensor) -> dict:
    """Mean PSNR/SSIM, PSNR apart on visible and disoccluded pixels, and the per-pair PSNR (for the bootstrap)."""
    target = torch.as_tensor(pairs["tgt_rgb"])
    per_pair = psnr(pred, target)
    return {"psnr": float(per_pair.mean()), "ssim": float(ssim(pred, target).mean()),
            "psnr_visible": pooled_psnr(pred, target, ~holes), "psnr_disoccluded": pooled_psnr(pred, target, holes),
            "per_pair_psnr": per_pair.tolist()}


def paired_bootstrap(a: list[float], b: list[float], reps: int = 2000, seed: int = 0) -> tuple[float, float]:
    """95 % percentile interval of mean(a - b) over test pairs resampled with replacement."""
    diff = np.asarray(a) - np.asarray(b)
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(len(diff), size=(reps, len(diff)))].mean(1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))
