"""ComponentVAE: the latent path of spec §2.1 (b), after 3DShape2VecSet / TripoSG, for one component at a time.

Encoder: Fourier features of a component's surface points (P = 512 at full size), cross-attention from
`latents` learned queries (packing the point set into a fixed-size vector set), one self-attention block,
then a diagonal Gaussian per latent (`latent_dim` channels). Decoder: the latents pass a self-attention
block; a 3-D query point's Fourier features cross-attend to them and an MLP gives its occupancy logit.
Trained on exact occupancy of the grammar's boxes (binary cross-entropy + β·KL), then frozen; a mesh
comes back by marching cubes (scikit-image) on the decoded occupancy grid. Components live in the shared
world frame, as the point tokens do, so decoded meshes land where their parts belong.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from proceedings.core.errors import ProceedingsError
from proceedings.core.progress import progress_bar
from proceedings.moca.data.procedural import Part, surface_points

BOUNDS = 1.25  # the world cube [-BOUNDS, BOUNDS]^3 holds every grammar object (floor at z = -1)


@dataclass
class VAEConfig:
    surface_points: int = 512  # P points per component fed to the encoder (spec §2.1 b)
    latents: int = 16  # L latent tokens
    latent_dim: int = 16  # D_z channels per latent
    dim: int = 64
    heads: int = 4
    frequencies: int = 8  # Fourier bands per coordinate
    kl_weight: float = 1e-3


class FourierPoints(nn.Module):
    """xyz (…, 3) -> (…, d): [xyz, sin(2^k π xyz), cos(2^k π xyz)] through a linear layer."""

    def __init__(self, frequencies: int, dim: int):
        super().__init__()
        self.register_buffer("bands", (2.0 ** torch.arange(frequencies)) * math.pi, persistent=False)
        self.proj = nn.Linear(3 + 6 * frequencies, dim)

    def forward(self, xyz: torch.Tensor) -> torch.Tensor:
        angles = (xyz[..., None] * self.bands).flatten(-2)  # (…, 3·F)
        return self.proj(torch.cat([xyz, angles.sin(), angles.cos()], -1))


class CrossAttention(nn.Module):
    """Pre-norm multi-head attention from `queries` to `context`, with a residual and an MLP."""

    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm_q, self.norm_kv, self.norm_mlp = nn.LayerNorm(dim), nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, queries: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
        kv = self.norm_kv(context)
        x = queries + self.attn(self.norm_q(queries), kv, kv, need_weights=False)[0]
        return x + self.mlp(self.norm_mlp(x))


class ComponentVAE(nn.Module):
    """encode(points (B, P, 3)) -> (mean, logvar) (B, L, D_z); decode(z, queries (B, Q, 3)) -> logits (B, Q)."""

    def __init__(self, cfg: VAEConfig):
        super().__init__()
        if cfg.dim % cfg.heads:
            raise ProceedingsError(f"VAE dim={cfg.dim} must be a multiple of heads={cfg.heads}")
        self.cfg = cfg
        d = cfg.dim
        self.embed = FourierPoints(cfg.frequencies, d)
        self.queries = nn.Parameter(torch.randn(cfg.latents, d) * 0.02)
        self.pack = CrossAttention(d, cfg.heads)
        self.encoder_self = CrossAttention(d, cfg.heads)
        self.to_gaussian = nn.Linear(d, 2 * cfg.latent_dim)
        self.from_latent = nn.Linear(cfg.latent_dim, d)
        self.decoder_self = CrossAttention(d, cfg.heads)
        self.read = CrossAttention(d, cfg.heads)
        self.occupancy = nn.Linear(d, 1)

    def encode(self, points: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if points.shape[-2] < 3:
            raise ProceedingsError(f"a component needs at least 3 surface points, got {points.shape[-2]}")
        h = self.pack(self.queries.expand(points.shape[0], -1, -1), self.embed(points))  # (B, L, d)
        h = self.encoder_self(h, h)
        mean, logvar = self.to_gaussian(h).chunk(2, -1)
        return mean, logvar.clamp(-10, 10)

    def decode(self, z: torch.Tensor, queries: torch.Tensor) -> torch.Tensor:
        h = self.from_latent(z)
        h = self.decoder_self(h, h)
        return self.occupancy(self.read(self.embed(queries), h)).squeeze(-1)  # (B, Q)

    def loss(self, points, queries, inside, generator: torch.Generator | None = None) -> tuple[torch.Tensor, dict]:
        """BCE on occupancy + β·KL(q(z|points) || N(0, I)), one reparameterised sample."""
        mean, logvar = self.encode(points)
        z = mean + (0.5 * logvar).exp() * torch.randn(mean.shape, generator=generator).to(mean.device)
        bce = F.binary_cross_entropy_with_logits(self.decode(z, queries), inside.float())
        kl = 0.5 * (mean.pow(2) + logvar.exp() - 1 - logvar).sum((1, 2)).mean()
        return bce + self.cfg.kl_weight * kl, {"bce": bce.item(), "kl": kl.item()}


def inside_box(part: Part, xyz: np.ndarray) -> np.ndarray:
    """Exact occupancy of a grammar box at points (Q, 3)."""
    local = (xyz - part.center) @ part.rotation
    return np.all(np.abs(local) <= part.half, axis=-1)


def occupancy_batch(parts: list[Part], cfg: VAEConfig, queries: int, rng: np.random.Generator):
    """Surface points (B, P, 3), query points (B, Q, 3) - half near the surface, half uniform - and occupancy."""
    points, where, inside = [], [], []
    for part in parts:
        points.append(surface_points(part.center, part.half, part.rotation, cfg.surface_points, rng))
        near = surface_points(part.center, part.half, part.rotation, queries // 2, rng)
        near += rng.normal(scale=0.02, size=near.shape)
        xyz = np.concatenate([near, rng.uniform(-BOUNDS, BOUNDS, size=(queries - queries // 2, 3))])
        where.append(xyz)
        inside.append(inside_box(part, xyz))
    as_tensor = lambda a: torch.from_numpy(np.stack(a)).float()  # noqa: E731
    return as_tensor(points), as_tensor(where), torch.from_numpy(np.stack(inside))


def train_vae(parts: list[Part], cfg: VAEConfig, steps: int = 2000, batch: int = 32, queries: int = 1024,
              lr: float = 1e-3, seed: int = 0, device: str = "cpu") -> tuple[ComponentVAE, list[float]]:
    """Fit the VAE on the grammar's components (a list of Parts) on `device`; returns the model (to freeze, on that
    device) and its losses. Batches and noise are drawn on the CPU, so a seed gives the same data on any device."""
    if not parts:
        raise ProceedingsError("no components to train the VAE on")
    torch.manual_seed(seed)
    rng, generator = np.random.default_rng(seed), torch.Generator().manual_seed(seed)
    vae = ComponentVAE(cfg).to(device)
    optimiser = torch.optim.AdamW(vae.parameters(), lr=lr)
    losses = []
    for _ in progress_bar(range(steps), desc="train VAE", unit="step"):
        chosen = [parts[i] for i in rng.integers(len(parts), size=batch)]
        batch_tensors = (t.to(device) for t in occupancy_batch(chosen, cfg, queries, rng))
        loss, _ = vae.loss(*batch_tensors, generator=generator)
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        optimiser.step()
        losses.append(loss.item())
    return vae.eval().requires_grad_(False), losses


@torch.no_grad()
def occupancy_grid(vae: ComponentVAE, z: torch.Tensor, resolution: int, low: np.ndarray, high: np.ndarray,
                   chunk: int = 32_768) -> np.ndarray:
    """Decoded occupancy logits of one component's latents z (L, D_z) on a resolution^3 grid over [low, high]."""
    axes = [torch.linspace(float(lo), float(hi), resolution, device=z.device) for lo, hi in zip(low, high)]
    grid = torch.stack(torch.meshgrid(*axes, indexing="ij"), -1).reshape(-1, 3)
    logits = torch.cat([vae.decode(z[None], grid[i : i + chunk][None])[0] for i in range(0, len(grid), chunk)])
    return logits.reshape(resolution, resolution, resolution).cpu().numpy()


def extract_mesh(vae: ComponentVAE, z: torch.Tensor, resolution: int = 64, low=(-BOUNDS,) * 3, high=(BOUNDS,) * 3):
    """Marching cubes (scikit-image) on the decoded occupancy at logit 0 -> a trimesh.Trimesh in world units.

    The grid spans the world cube unless `low`/`high` narrow it (thin parts need a cell finer than their thickness).
    """
    import trimesh
    from skimage.measure import marching_cubes

    low, high = np.asarray(low, float), np.asarray(high, float)
    logits = occupancy_grid(vae, z, resolution, low, high)
    if logits.max() <= 0 or logits.min() >= 0:
        raise ProceedingsError("the decoded occupancy has no surface on this grid (all inside or all outside): the "
                               "latents are off the VAE's manifold, the VAE is untrained, or the grid is too coarse")
    vertices, faces, _, _ = marching_cubes(logits, level=0.0, spacing=tuple((high - low) / (resolution - 1)))
    return trimesh.Trimesh(vertices + low, faces, process=False)
