"""Novel-view metrics: PSNR (all pixels, and apart on the disoccluded pixels), SSIM, FD-proxy, paired bootstrap.

The disoccluded pixels of a test pair are those the exact warp of the source (true depth, true pose)
does not reach: what no warp can know and a model must invent. The FD-proxy asks whether what a model
invents there looks like the real thing: the Fréchet distance between Gaussians fitted to frozen
features (the tiny estimator's encoder, in place of Inception/DINO) of the predicted and the true
disoccluded pixels, as FID does for whole images.
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


@torch.no_grad()
def hole_statistics(features, images: torch.Tensor, holes: torch.Tensor) -> tuple[np.ndarray, np.ndarray] | None:
    """Mean and covariance of frozen per-pixel features over the disoccluded pixels `holes (N, H, W)`."""
    maps = [torch.nn.functional.interpolate(f, size=images.shape[-2:]) for f in features(images.float())]
    x = torch.cat(maps, 1).permute(0, 2, 3, 1)[holes].double()  # (pixels, channels)
    if len(x) < 2:
        return None
    mean = x.mean(0)
    centred = x - mean
    return mean.numpy(), (centred.T @ centred / (len(x) - 1)).numpy()


def frechet_distance(a: tuple[np.ndarray, np.ndarray] | None, b: tuple[np.ndarray, np.ndarray] | None) -> float:
    """||mu_a - mu_b||^2 + Tr(C_a + C_b - 2 (C_a C_b)^1/2): the FD-proxy between two hole statistics."""
    from scipy.linalg import sqrtm

    if a is None or b is None:
        return float("nan")
    root = sqrtm(a[1] @ b[1]).real
    return float(((a[0] - b[0]) ** 2).sum() + np.trace(a[1] + b[1] - 2 * root))


def disoccluded(pairs: dict[str, np.ndarray], K: np.ndarray) -> torch.Tensor:
    """(N, H, W) target pixels that the exact warp of the source (true depth, sky far away) does not reach."""
    from proceedings.ovie.baselines import lift
    from proceedings.ovie.depth import OracleDepth

    points, valid, normals = lift(OracleDepth(), pairs, K)
    _, visible = splat(torch.as_tensor(pairs["rgb"]), points, valid, K, torch.as_tensor(pairs["T"]).float(), normals=normals)
    return ~visible


def scores(pred: torch.Tensor, pairs: dict[str, np.ndarray], holes: torch.Tensor, features=None,
           true_holes: tuple[np.ndarray, np.ndarray] | None = None) -> dict:
    """Mean PSNR/SSIM, PSNR apart on visible and disoccluded pixels, the hole FD-proxy (given frozen
    `features` and the true targets' `hole_statistics`), and the per-pair PSNR (for the bootstrap)."""
    target = torch.as_tensor(pairs["tgt_rgb"])
    per_pair = psnr(pred, target)
    out = {"psnr": float(per_pair.mean()), "ssim": float(ssim(pred, target).mean()),
           "psnr_visible": pooled_psnr(pred, target, ~holes), "psnr_disoccluded": pooled_psnr(pred, target, holes)}
    if features is not None:
        out["fd_proxy_disoccluded"] = frechet_distance(hole_statistics(features, pred, holes), true_holes)
    return {**out, "per_pair_psnr": per_pair.tolist()}


def paired_bootstrap(a: list[float], b: list[float], reps: int = 2000, seed: int = 0) -> tuple[float, float]:
    """95 % percentile interval of mean(a - b) over test pairs resampled with replacement."""
    diff = np.asarray(a) - np.asarray(b)
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(len(diff), size=(reps, len(diff)))].mean(1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))
