"""PSNR and SSIM of video frames (Gaussian-window SSIM, Wang et al. 2004), used as a loss and a metric."""

from __future__ import annotations

import torch
from torch.nn import functional as F


def _window(size: int = 7, sigma: float = 1.5) -> torch.Tensor:
    x = torch.arange(size, dtype=torch.float32) - size // 2
    g = torch.exp(-x ** 2 / (2 * sigma ** 2))
    g = g / g.sum()
    return (g[:, None] * g[None, :])[None, None]


def ssim(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Mean SSIM per image over channels and pixels. a, b: (N, C, H, W) in [0, 1] -> (N,)"""
    C = a.shape[1]
    w = _window().to(a).expand(C, 1, -1, -1)
    pad = w.shape[-1] // 2

    def blur(x: torch.Tensor) -> torch.Tensor:
        return F.conv2d(F.pad(x, [pad] * 4, mode="replicate"), w, groups=C)

    mu_a, mu_b = blur(a), blur(b)
    var_a, var_b = blur(a * a) - mu_a ** 2, blur(b * b) - mu_b ** 2
    cov = blur(a * b) - mu_a * mu_b
    c1, c2 = 0.01 ** 2, 0.03 ** 2
    s = ((2 * mu_a * mu_b + c1) * (2 * cov + c2)) / ((mu_a ** 2 + mu_b ** 2 + c1) * (var_a + var_b + c2))
    return s.flatten(1).mean(1)


def psnr(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """PSNR in dB per image. a, b: (N, C, H, W) in [0, 1] -> (N,)"""
    mse = ((a.clamp(0, 1) - b) ** 2).flatten(1).mean(1).clamp_min(1e-10)
    return -10 * torch.log10(mse)
