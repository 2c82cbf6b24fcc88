"""Fitting the router of a retrofitted model on cached features (spec §2.4; issue 18).

The pretrained layers and every exit head stay frozen: an intermediate exit is the logit lens (the
final norm and the tied unembedding after layer l_e). So one forward pass over the text yields all the
loss needs at each position: every gate's input norm_e(h_{l_e}) and log p_e(y) for every exit. The
gates are then a logistic-regression-sized problem on those features,

    loss = -mean_t log sum_e pi_e p_e(y_t)  +  lambda * mean_t sum_e pi_e l_e / L      (spec §2.2)

which takes seconds, where backpropagating through SmolLM2 would take CPU-hours. The feature pass
checkpoints every few windows, so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from proceedings.core.runtime import load_checkpoint, save_checkpoint
from proceedings.nvium.mixture import expected_depth, log_mixture_weights
from proceedings.nvium.model import NviumForCausalLM

START_BIAS = -2.0  # the fit starts from sigmoid(-2) = 0.12 per gate; at the retrofit's -30 no gradient flows


@dataclass
class ExitFeatures:
    gate_inputs: torch.Tensor  # (tokens, N-1, d): norm_e(h_{l_e}) at every gated exit
    log_likelihoods: torch.Tensor  # (tokens, N): log p_e(y) of the next token under every exit

    def __len__(self) -> int:
        return len(self.log_likelihoods)

    def split(self, fraction: float) -> tuple["ExitFeatures", "ExitFeatures"]:
        """The first `fraction` of positions and the rest (contiguous, so no window is shared)."""
        cut = int(len(self) * fraction)
        return (ExitFeatures(self.gate_inputs[:cut], self.log_likelihoods[:cut]),
                ExitFeatures(self.gate_inputs[cut:], self.log_likelihoods[cut:]))


@torch.inference_mode()
def window_features(model: NviumForCausalLM, x: torch.Tensor, y: torch.Tensor) -> ExitFeatures:
    """Features of one batch of windows x, y (batch, T): the frozen model run layer by layer."""
    gate_inputs, log_likelihoods = [], []
    for e, hidden in model.exit_hiddens(x):
        normed = model.exit_norms[e](hidden)
        logits = model.lm_head(normed).float()  # (batch, T, vocab)
        log_likelihoods.append(logits.gather(-1, y.unsqueeze(-1)).squeeze(-1) - logits.logsumexp(-1))
        if e < model.config.n_exits - 1:
            gate_inputs.append(normed)
    d = model.config.d_model
    return ExitFeatures(torch.stack(gate_inputs, dim=2).reshape(-1, len(gate_inputs), d).float(),
                        torch.stack(log_likelihoods, dim=-1).reshape(-1, len(log_likelihoods)))


def exit_features(model: NviumForCausalLM, ids: np.ndarray, seq_len: int, max_tokens: int, cache: Path,
                  batch_size: int = 4, on_window=None) -> ExitFeatures:
    """Features of the first `max_tokens` predicted tokens of `ids`, resumed from `cache` if a run stopped."""
    starts = list(range(0, min(len(ids) - 1, max_tokens) - seq_len + 1, seq_len))
    state = load_checkpoint(cache) or {"done": 0, "gate_inputs": [], "log_likelihoods": []}
    for i in range(state["done"], len(starts), batch_size):
        windows = np.stack([ids[s:s + seq_len + 1] for s in starts[i:i + batch_size]]).astype(np.int64)
        windows = torch.from_numpy(windows).to(next(model.parameters()).device)
        part = window_features(model, windows[:, :-1], windows[:, 1:])
        state["gate_inputs"].append(part.gate_inputs.cpu())
        state["log_likelihoods"].append(part.log_likelihoods.cpu())
        state["done"] = min(i + batch_size, len(starts))
        save_checkpoint(cache, state)
        if on_window is not None:
            on_window(state["done"], len(starts))
    return ExitFeatures(torch.cat(state["gate_inputs"]), torch.cat(state["log_likelihoods"]))


def mixture_nll(weight: torch.Tensor, bias: torch.Tensor, features: ExitFeatures) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean mixture NLL (nats) and the log mixture weights (tokens, N) under gates (weight, bias)."""
    gate_logits = (features.gate_inputs * weight).sum(-1) + bias  # (tokens, N-1)
    log_weights = log_mixture_weights(gate_logits)
    return -(log_weights + features.log_likelihoods).logsumexp(-1).mean(), log_weights


def fit_gates(features: ExitFeatures, depth_fractions: list[float], depth_penalty: float, steps: int = 300,
              lr: float = 0.02, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Gate weights (N-1, d) and biases (N-1,) minimising mixture NLL + lambda * expected depth (full batch, Adam)."""
    torch.manual_seed(seed)
    n_gates, d = features.gate_inputs.shape[1:]
    weight = torch.zeros(n_gates, d, requires_grad=True)
    bias = torch.full((n_gates,), START_BIAS, requires_grad=True)
    optimizer = torch.optim.Adam([weight, bias], lr=lr)
    for _ in range(steps):
        nll, log_weights = mixture_nll(weight, bias, features)
        loss = nll + depth_penalty * expected_depth(log_weights, depth_fractions).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return weight.detach(), bias.detach()


@torch.no_grad()
def install_gates(model: NviumForCausalLM, weight: torch.Tensor, bias: torch.Tensor) -> NviumForCausalLM:
    """Write fitted gates into the model (in place)."""
    for e, gate in enumerate(model.gates):
        gate.weight.copy_(weight[e:e + 1].to(gate.weight))
        gate.bias.copy_(bias[e:e + 1].to(gate.bias))
    return model
