"""The mixture over exits: routing weights, exact likelihood, and the depth penalty (spec §2.2).

Everything is computed in log space and fp32. log g and log(1 - g) come from logsigmoid, which is
exact for any gate logit, so no clamping is needed; clamping g to [1e-6, 1 - 1e-6] (the spec's
suggestion) would leave 1e-6 mass on every shallow exit and break the strict generalisation test.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F


def log_mixture_weights(gate_logits: torch.Tensor) -> torch.Tensor:
    """Halting-router weights: (..., N-1) gate logits z_e -> (..., N) log pi_e.

    pi_e = g_e prod_{j<e} (1 - g_j) and pi_N = prod_{j<N} (1 - g_j), with g = sigmoid(z).
    """
    log_stop = F.logsigmoid(gate_logits)  # log g_e
    log_pass = F.logsigmoid(-gate_logits)  # log (1 - g_e)
    zeros = gate_logits.new_zeros(*gate_logits.shape[:-1], 1)
    log_reach = torch.cat((zeros, log_pass.cumsum(-1)), dim=-1)  # log P(reach exit e)
    return log_reach + torch.cat((log_stop, zeros), dim=-1)


def exit_log_likelihoods(exit_logits: list[torch.Tensor], targets: torch.Tensor) -> torch.Tensor:
    """log p_e(y) for every exit: (batch, seq, N), one exit at a time to keep memory at one vocab slab."""
    per_exit = []
    for logits in exit_logits:
        logits = logits.float()
        picked = logits.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
        per_exit.append(picked - logits.logsumexp(-1))
    return torch.stack(per_exit, dim=-1)


def mixture_log_likelihood(exit_logits: list[torch.Tensor], log_weights: torch.Tensor,
                           targets: torch.Tensor) -> torch.Tensor:
    """log p(y) = logsumexp_e(log pi_e + log p_e(y)), shape (batch, seq)."""
    return mix_exit_likelihoods(log_weights, exit_log_likelihoods(exit_logits, targets))


def mix_exit_likelihoods(log_weights: torch.Tensor, exit_log_likelihood: torch.Tensor) -> torch.Tensor:
    """log p(y) from the exits' own log p_e(y), both (batch, seq, N) -> (batch, seq)."""
    return (log_weights.float() + exit_log_likelihood).logsumexp(-1)


def mixture_log_probs(exit_logits: list[torch.Tensor], log_weights: torch.Tensor) -> torch.Tensor:
    """The whole next-token distribution log p(. | x), shape (batch, seq, vocab)."""
    stacked = torch.stack([logits.float().log_softmax(-1) for logits in exit_logits], dim=-2)
    return (log_weights.float().unsqueeze(-1) + stacked).logsumexp(-2)


def expected_depth(log_weights: torch.Tensor, depth_fractions: list[float]) -> torch.Tensor:
    """sum_e pi_e * l_e / L per position: the fraction of layers a sampled token costs, (batch, seq)."""
    fractions = torch.tensor(depth_fractions, dtype=torch.float32, device=log_weights.device)
    return (log_weights.float().exp() * fractions).sum(-1)


@dataclass
class MixtureLoss:
    total: torch.Tensor  # what is minimised: nll + lambda * depth
    nll: torch.Tensor  # mean negative log-likelihood of the mixture, nats per token
    depth: torch.Tensor  # mean expected depth fraction
    exit_nll: torch.Tensor  # (N,) every exit's own mean negative log-likelihood (the auxiliary CE, spec §2.2)


def mixture_loss(exit_logits: list[torch.Tensor], log_weights: torch.Tensor, targets: torch.Tensor,
                 depth_fractions: list[float], depth_penalty: float) -> MixtureLoss:
    """-mean log p(y) + lambda * mean_t sum_e pi_e l_e / L (spec §2.2; lambda = depth_penalty), and each
    exit's own -mean log p_e(y) for the auxiliary cross-entropy the training loop may add."""
    per_exit = exit_log_likelihoods(exit_logits, targets)
    nll = -mix_exit_likelihoods(log_weights, per_exit).mean()
    depth = expected_depth(log_weights, depth_fractions).mean()
    exit_nll = -per_exit.flatten(0, -2).mean(0)
    return MixtureLoss(total=nll + depth_penalty * depth, nll=nll, depth=depth, exit_nll=exit_nll)
