"""The reduced OVIE networks (spec §2.5): a UNet(32, 64, 128) with GroupNorm and pose FiLM, or a small ViT.

The geometry-free model sees the source RGB concatenated with the target camera's Plücker map in the
source frame (9 channels) and the 12-d relative pose (FiLM at the bottleneck), and outputs the target
RGB through a sigmoid, as a correction to the source's logits (an untrained net copies the source). The `vit` option (patch 4, d 192, depth 6, one camera token) mirrors the paper's
token design (spec §2.3). The tiny depth estimator is the same UNet trunk without pose (3 -> 2 channels).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from proceedings.ovie.geometry import plucker, pose_encoding

WIDTHS = (32, 64, 128)  # spec §2.5: OVIE's trunk widths (also the tiny estimator's)
SOURCE_CLAMP = 1e-3  # the source is clamped to [eps, 1 - eps] before its logit


def _block(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.GroupNorm(8, cout), nn.SiLU(),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.GroupNorm(8, cout), nn.SiLU())


class UNet(nn.Module):
    """Three-level UNet; with `pose_dim` > 0 a FiLM (scale, shift) of the pose modulates the bottleneck."""

    def __init__(self, cin: int, cout: int, widths: tuple[int, ...] = WIDTHS, pose_dim: int = 0):
        super().__init__()
        w1, w2, w3 = widths
        self.enc1, self.enc2, self.enc3 = _block(cin, w1), _block(w1, w2), _block(w2, w3)
        self.film = nn.Sequential(nn.Linear(pose_dim, w3), nn.SiLU(), nn.Linear(w3, 2 * w3)) if pose_dim else None
        self.up2, self.dec2 = nn.ConvTranspose2d(w3, w2, 2, stride=2), _block(2 * w2, w2)
        self.up1, self.dec1 = nn.ConvTranspose2d(w2, w1, 2, stride=2), _block(2 * w1, w1)
        self.head = nn.Conv2d(w1, cout, 1)

    def encode(self, x: torch.Tensor, levels: int = 3) -> list[torch.Tensor]:
        """The encoder's first `levels` feature maps, at full, half and quarter resolution."""
        features = [self.enc1(x)]
        for block in (self.enc2, self.enc3)[:levels - 1]:
            features.append(block(nn.functional.avg_pool2d(features[-1], 2)))
        return features

    def forward(self, x: torch.Tensor, pose: torch.Tensor | None = None) -> torch.Tensor:
        e1, e2, e3 = self.encode(x)
        if self.film is not None:
            scale, shift = self.film(pose).chunk(2, dim=1)  # (B, w3) each
            e3 = e3 * (1 + scale[..., None, None]) + shift[..., None, None]
        d2 = self.dec2(torch.cat([self.up2(e3), e2], dim=1))
        return self.head(self.dec1(torch.cat([self.up1(d2), e1], dim=1)))


class PatchViT(nn.Module):
    """Encoder-only ViT over source patches plus one camera token (spec §2.3, inferred layout)."""

    def __init__(self, cin: int, cout: int, size: int, patch: int = 4, dim: int = 192, depth: int = 6,
                 heads: int = 6, pose_dim: int = 12):
        super().__init__()
        self.patch, self.cout, self.grid = patch, cout, size // patch
        self.embed = nn.Conv2d(cin, dim, patch, stride=patch)
        self.camera = nn.Linear(pose_dim, dim)
        self.position = nn.Parameter(torch.zeros(1, self.grid ** 2 + 1, dim))
        layer = nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout=0.0, activation="gelu", batch_first=True,
                                           norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, patch * patch * cout)

    def forward(self, x: torch.Tensor, pose: torch.Tensor) -> torch.Tensor:
        tokens = self.embed(x).flatten(2).transpose(1, 2)  # (B, grid^2, dim)
        tokens = torch.cat([self.camera(pose)[:, None], tokens], dim=1) + self.position
        out = self.head(self.norm(self.blocks(tokens))[:, 1:])  # (B, grid^2, p*p*cout)
        B, g, p = x.shape[0], self.grid, self.patch
        return out.view(B, g, g, self.cout, p, p).permute(0, 3, 1, 4, 2, 5).reshape(B, self.cout, g * p, g * p)


class NovelViewNet(nn.Module):
    """source image + target pose -> target image; no depth at inference (OVIE and the MV baseline)."""

    def __init__(self, size: int, K: np.ndarray, arch: str = "unet"):
        super().__init__()
        self.size, self.arch = size, arch
        self.register_buffer("K", torch.as_tensor(K, dtype=torch.float64), persistent=False)
        if arch == "unet":
            self.body: nn.Module = UNet(9, 3, pose_dim=12)
        elif arch.startswith("vit"):
            dims = {"vit": (192, 6, 6), "vit-b": (768, 12, 12)}[arch]
            self.body = PatchViT(9, 3, size, patch=4 if arch == "vit" else 16, dim=dims[0], depth=dims[1], heads=dims[2])
        else:
            from proceedings.core.errors import ProceedingsError

            raise ProceedingsError(f"unknown architecture '{arch}'; choose unet, vit or vit-b")
        nn.init.zeros_(self.body.head.weight)  # starts as copy-source (see forward)
        nn.init.zeros_(self.body.head.bias)

    def forward(self, source: torch.Tensor, T: torch.Tensor) -> torch.Tensor:
        """(B, 3, H, W) source, (B, 4, 4) T_src->tgt -> (B, 3, H, W) predicted target in [0, 1].

        The body predicts a correction to the source in logit space, and its head starts at zero, so an
        untrained network copies the source and training only has to learn how the view moves."""
        rays = plucker(T, self.K.cpu().numpy(), self.size).to(source)
        correction = self.body(torch.cat([source, rays], dim=1), pose_encoding(T).to(source.dtype))
        return torch.sigmoid(torch.logit(source.clamp(SOURCE_CLAMP, 1 - SOURCE_CLAMP)) + correction)

    def last_layer(self) -> torch.Tensor:
        """The weight the adaptive GAN weight is measured at (spec §2.4, VQGAN rule)."""
        return self.body.head.weight


def save_model(path, net: NovelViewNet, units: str = "meters") -> None:
    """The EMA weights with what is needed to rebuild the net; `units` of the depth it trained with."""
    from proceedings.core.runtime import save_checkpoint

    save_checkpoint(path, {"state": net.state_dict(), "size": net.size, "arch": net.arch, "units": units})


def load_model(path) -> tuple[NovelViewNet, str]:
    """(net, pose units) from `save_model`'s file; a missing or foreign file is a one-line error."""
    from proceedings.core.errors import ProceedingsError
    from proceedings.core.runtime import load_checkpoint
    from proceedings.ovie.camera import intrinsics

    state = load_checkpoint(path)
    if state is None:
        raise ProceedingsError(f"model file '{path}' not found; train one with `proceedings ovie train --out DIR`")
    if not isinstance(state, dict) or "state" not in state:
        raise ProceedingsError(f"'{path}' is not an OVIE model file (a training checkpoint? use its folder's model.pt)")
    net = NovelViewNet(state["size"], intrinsics(state["size"]), state["arch"])
    net.load_state_dict(state["state"])
    return net.eval(), state["units"]
