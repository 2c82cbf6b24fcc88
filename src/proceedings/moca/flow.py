"""Rectified flow (flow matching) for the component point tokens, with classifier-free guidance.

x_t = (1 - t) x_0 + t ε, the model predicts the velocity v = ε - x_0 (spec §2.2); sampling integrates
dx/dt = v from t = 1 (noise) to t = 0 with Euler steps. The class label is dropped 10 % of the time in
training (the CFG "no class" label), and sampling mixes v = v_u + w (v_c - v_u).
"""

from __future__ import annotations

import torch

from proceedings.core.errors import ProceedingsError
from proceedings.moca.model import CompositionalDiT


def random_ids(batch: int, n: int, pool: int, generator: torch.Generator) -> torch.Tensor:
    """N distinct component IDs per sample, drawn from the pool (B, N)."""
    if n > pool:
        raise ProceedingsError(f"{n} components exceed the ID pool of {pool} (max_components)")
    return torch.stack([torch.randperm(pool, generator=generator)[:n] for _ in range(batch)])


def flow_matching_loss(model: CompositionalDiT, x0: torch.Tensor, label: torch.Tensor, valid: torch.Tensor,
                       generator: torch.Generator, drop_class: float = 0.1) -> torch.Tensor:
    """Mean squared velocity error over the real components of a padded batch x0 (B, N, L, C); `model` may be
    wrapped for data-parallel training (Accelerate)."""
    net = getattr(model, "module", model)
    b, n = x0.shape[:2]
    t = torch.rand(b, generator=generator).to(x0.device)  # drawn on the CPU generator: the same on any device
    noise = torch.randn(x0.shape, generator=generator).to(x0.device)
    ids = random_ids(b, n, net.cfg.max_components, generator).to(x0.device)
    dropped = torch.rand(b, generator=generator).to(x0.device) < drop_class
    label = torch.where(dropped, torch.full_like(label, net.null_class), label)
    tt = t.view(b, 1, 1, 1)
    xt = (1 - tt) * x0 + tt * noise
    error = (model(xt, t, label, ids, valid) - (noise - x0)).pow(2).mean((2, 3))  # (B, N)
    return (error * valid).sum() / valid.sum()


@torch.no_grad()
def sample(model: CompositionalDiT, label: int, n_components: int, count: int = 1, steps: int = 20,
           cfg: float = 3.0, seed: int = 0) -> torch.Tensor:
    """`count` assemblies of `n_components` components of class index `label`, (count, N, L, C) on the CPU."""
    if n_components < 1:
        raise ProceedingsError(f"n_components must be >= 1, got {n_components}")
    if steps < 1:
        raise ProceedingsError(f"steps must be >= 1, got {steps}")
    device = next(model.parameters()).device
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(count, n_components, model.cfg.points, model.cfg.channels, generator=generator).to(device)
    ids = random_ids(count, n_components, model.cfg.max_components, generator).to(device)
    labels = torch.full((count,), label, dtype=torch.long, device=device)
    null = torch.full((count,), model.null_class, dtype=torch.long, device=device)
    was_training = model.training
    model.eval()
    for step in range(steps):
        t = torch.full((count,), 1 - step / steps, device=device)
        v = model(x, t, labels, ids)
        if cfg != 1.0:
            v_uncond = model(x, t, null, ids)
            v = v_uncond + cfg * (v - v_uncond)
        x = x - v / steps
    model.train(was_training)
    return x.cpu()
