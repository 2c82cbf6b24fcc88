"""PRO's perturbation-aware regularizer (FPL, paper §3.2; the formulation is inferred, spec §2.3).

Each step simulates a weight modification a user might make, Delta, applies it to the trained
weights, measures detectability there, and backpropagates that loss into the *unperturbed* weights
(first-order, as SAM / first-order MAML do): the model learns a watermark that still shows after
the modification.  Kinds, cycled step by step:
  - `ft`: one normalised step down the clean language-model loss (forgetting fine-tuning);
  - `merge`: Delta = alpha (theta_orig - theta), alpha ~ U(0, alpha_max) (merge with the original);
  - `noise`: Gaussian, std relative to each tensor's std (quantization / pruning proxy).
"""

from __future__ import annotations

import contextlib

import torch


def merge_delta(params, originals, alpha: float) -> list[torch.Tensor]:
    """alpha (theta_orig - theta): the move a linear merge with the original weights makes."""
    return [alpha * (orig.detach() - p.detach()) for p, orig in zip(params, originals)]


def noise_delta(params, relative_std: float) -> list[torch.Tensor]:
    return [torch.randn_like(p) * relative_std * p.detach().std().clamp_min(1e-8) for p in params]


def forgetting_delta(params, clean_loss: torch.Tensor, relative_step: float) -> list[torch.Tensor]:
    """One step down `clean_loss`, each tensor moved by `relative_step` times its own norm."""
    grads = torch.autograd.grad(clean_loss, params, allow_unused=True)
    deltas = []
    for p, g in zip(params, grads):
        if g is None:
            deltas.append(torch.zeros_like(p))
            continue
        deltas.append(-relative_step * p.detach().norm() * g / g.norm().clamp_min(1e-12))
    return deltas


@contextlib.contextmanager
def perturbed(params, deltas):
    """Temporarily theta <- theta + Delta; the exact original values are restored on exit.

    Run forward *and* backward inside the block: the gradient at theta + Delta lands in theta.grad.
    """
    saved = [p.detach().clone() for p in params]
    with torch.no_grad():
        for p, d in zip(params, deltas):
            p.add_(d)
    try:
        yield
    finally:
        with torch.no_grad():
            for p, s in zip(params, saved):
                p.copy_(s)
