"""OVIE's objective (spec §2.4): L = L_rec + λ_ssim L_ssim + λ_feat L_feat + λ_gan w_adapt L_G.

Every reconstruction term is masked by the pseudo-target's visibility, so a disoccluded pixel gets no
gradient from it; the GAN term alone sees the full prediction. The discriminator (a PatchGAN with a
hinge loss) takes DiffAugment-shifted *source* images as reals: no target exists in the holes.
"""

from __future__ import annotations

import torch
from pytorch_msssim.ssim import _fspecial_gauss_1d, gaussian_filter
from torch import nn

CHARBONNIER_EPS = 1e-3  # spec §2.4


def masked_charbonnier(pred: torch.Tensor, target: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """sqrt((pred - target)^2 + eps^2) averaged over the visible pixels (mask (B, H, W))."""
    m = mask[:, None].to(pred.dtype)
    error = torch.sqrt((pred - target) ** 2 + CHARBONNIER_EPS ** 2)
    return (error * m).sum() / (3 * m.sum()).clamp_min(1.0)


def ssim_map(x: torch.Tensor, y: torch.Tensor, win_size: int = 7, sigma: float = 1.5) -> torch.Tensor:
    """Per-pixel SSIM (B, 3, H, W) with the Gaussian window of pytorch-msssim, zero-padded ('same' size)."""
    window = _fspecial_gauss_1d(win_size, sigma).repeat(x.shape[1], 1, 1, 1).to(x.dtype)
    pad = win_size // 2
    x, y = (nn.functional.pad(t, (pad, pad, pad, pad), mode="reflect") for t in (x, y))
    mu_x, mu_y = gaussian_filter(x, window), gaussian_filter(y, window)
    var_x = gaussian_filter(x * x, window) - mu_x ** 2
    var_y = gaussian_filter(y * y, window) - mu_y ** 2
    cov = gaussian_filter(x * y, window) - mu_x * mu_y
    c1, c2 = 0.01 ** 2, 0.03 ** 2
    return ((2 * mu_x * mu_y + c1) * (2 * cov + c2)) / ((mu_x ** 2 + mu_y ** 2 + c1) * (var_x + var_y + c2))


def masked_ssim_loss(pred: torch.Tensor, target: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """1 - SSIM of (pred x mask) and the (already zero-holed) target, averaged over visible pixels."""
    m = mask[:, None].to(pred.dtype)
    s = ssim_map(pred * m, target * m)
    return ((1 - s) * m).sum() / (3 * m.sum()).clamp_min(1.0)


def masked_feature_loss(features, pred: torch.Tensor, target: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """1 - cosine of frozen features of (pred x mask) and target, weighted by the mask pooled to each grid."""
    m = mask[:, None].to(pred.dtype)
    total = pred.new_zeros(())
    for fp, ft in zip(features(pred * m), features(target * m)):
        weight = nn.functional.adaptive_avg_pool2d(m, fp.shape[-2:])[:, 0]
        cosine = nn.functional.cosine_similarity(fp, ft, dim=1)
        total = total + ((1 - cosine) * weight).sum() / weight.sum().clamp_min(1e-6)
    return total


class PatchDiscriminator(nn.Module):
    """A small PatchGAN: one realism logit per receptive-field patch."""

    def __init__(self, width: int = 32):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, width, 4, 2, 1), nn.LeakyReLU(0.2),
            nn.Conv2d(width, 2 * width, 4, 2, 1), nn.GroupNorm(8, 2 * width), nn.LeakyReLU(0.2),
            nn.Conv2d(2 * width, 1, 3, 1, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(2 * x - 1)


def diff_augment(x: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """DiffAugment's translation (±1/8 of the side, zero-filled) and brightness: differentiable."""
    B, _, H, W = x.shape
    shift = H // 8
    dx, dy = (torch.randint(-shift, shift + 1, (1,), generator=generator).item() for _ in range(2))
    x = torch.roll(x, (dy, dx), dims=(2, 3))
    brightness = torch.rand(B, 1, 1, 1, generator=generator) * 0.2 - 0.1
    return (x + brightness).clamp(0, 1)


def hinge_d_loss(real_logits: torch.Tensor, fake_logits: torch.Tensor) -> torch.Tensor:
    return nn.functional.relu(1 - real_logits).mean() + nn.functional.relu(1 + fake_logits).mean()


def generator_loss(fake_logits: torch.Tensor) -> torch.Tensor:
    """-D(fake) on the full prediction (spec §2.4)."""
    return -fake_logits.mean()


def adaptive_weight(rec_loss: torch.Tensor, gan_loss: torch.Tensor, last_layer: torch.Tensor, max_weight: float) -> torch.Tensor:
    """||grad_last L_rec|| / (||grad_last L_G|| + 1e-6), clamped to [0, max_weight] (VQGAN rule)."""
    rec_grad = torch.autograd.grad(rec_loss, last_layer, retain_graph=True)[0]
    gan_grad = torch.autograd.grad(gan_loss, last_layer, retain_graph=True)[0]
    return (rec_grad.norm() / (gan_grad.norm() + 1e-6)).clamp(0, max_weight).detach()
