"""Fitting the router of a retrofitted, frozen model on cached residual streams (spec §2.4; issue 18).

The pretrained layers stay frozen, so one forward pass over the text yields the residual stream after
every exit layer at each position (`exit_hiddens`, cached and resumable). From it, with the exit heads
as they are (the logit lens, or trained: exit_heads.py), every gate's input norm_e(h_{l_e}) and
log p_e(y) for every exit follow cheaply (`exit_features`). The gates are then a logistic-regression-
sized problem on those features,

    loss = -mean_t log sum_e pi_e p_e(y_t)  +  lambda * mean_t sum_e pi_e l_e / L      (spec §2.2)

fitted in seconds (standardised inputs, L-BFGS), where backpropagating through SmolLM2 would take CPU-hours.
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
class ExitHiddens:
    """The frozen model's residual stream after every exit layer, and the next token, per position."""

    hiddens: torch.Tensor  # (tokens, N, d)
    targets: torch.Tensor  # (tokens,)

    def __len__(self) -> int:
        return len(self.targets)

    def split(self, fraction: float) -> tuple["ExitHiddens", "ExitHiddens"]:
        """The first `fraction` of positions and the rest (contiguous, so no window is shared)."""
        cut = int(len(self) * fraction)
        return ExitHiddens(self.hiddens[:cut], self.targets[:cut]), ExitHiddens(self.hiddens[cut:], self.targets[cut:])


@dataclass
class ExitFeatures:
    gate_inputs: torch.Tensor  # (tokens, N-1, d): norm_e(h_{l_e}) at every gated exit
    log_likelihoods: torch.Tensor  # (tokens, N): log p_e(y) of the next token under every exit

    def __len__(self) -> int:
        return len(self.log_likelihoods)


@torch.no_grad()
def window_hiddens(model: NviumForCausalLM, x: torch.Tensor) -> torch.Tensor:
    """(batch * T, N, d): the residual stream after every exit layer for windows x (batch, T)."""
    stacked = torch.stack([hidden for _, hidden in model.exit_hiddens(x)], dim=2)
    return stacked.reshape(-1, model.config.n_exits, model.config.d_model).float()


def exit_hiddens(model: NviumForCausalLM, ids: np.ndarray, seq_len: int, max_tokens: int, cache: Path,
                 batch_size: int = 4, on_window=None) -> ExitHiddens:
    """Residual streams of the first `max_tokens` predicted tokens of `ids`, resumed from `cache` if a run stopped."""
    starts = list(range(0, min(len(ids) - 1, max_tokens) - seq_len + 1, seq_len))
    state = load_checkpoint(cache) or {"done": 0, "hiddens": [], "targets": []}
    for i in range(state["done"], len(starts), batch_size):
        windows = np.stack([ids[s:s + seq_len + 1] for s in starts[i:i + batch_size]]).astype(np.int64)
        windows = torch.from_numpy(windows).to(next(model.parameters()).device)
        state["hiddens"].append(window_hiddens(model, windows[:, :-1]).cpu())
        state["targets"].append(windows[:, 1:].reshape(-1).cpu())
        state["done"] = min(i + batch_size, len(starts))
        save_checkpoint(cache, state)
        if on_window is not None:
            on_window(state["done"], len(starts))
    return ExitHiddens(torch.cat(state["hiddens"]), torch.cat(state["targets"]))


def exit_log_likelihood(model: NviumForCausalLM, e: int, hiddens: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """log p_e(y) under exit e's head (tokens,), in fp32."""
    logits = model.exit_logits(e, hiddens).float()
    return logits.gather(-1, targets.unsqueeze(-1)).squeeze(-1) - logits.logsumexp(-1)


@torch.no_grad()
def exit_features(model: NviumForCausalLM, data: ExitHiddens, batch_size: int = 64) -> ExitFeatures:
    """Every gate's input and every exit's log p_e(y), with the model's exit heads as they are now (in small
    batches: 512 positions of a 49 k-word head are 100 MB of logits, which the allocator maps afresh each time)."""
    device = next(model.parameters()).device
    gate_inputs, log_likelihoods = [], []
    for i in range(0, len(data), batch_size):
        h, y = data.hiddens[i:i + batch_size].to(device), data.targets[i:i + batch_size].to(device)
        n = model.config.n_exits
        gate_inputs.append(torch.stack([model.exit_state(e, h[:, e]) for e in range(n - 1)], dim=1).float().cpu())
        log_likelihoods.append(torch.stack([exit_log_likelihood(model, e, h[:, e], y) for e in range(n)], dim=1).cpu())
    return ExitFeatures(torch.cat(gate_inputs), torch.cat(log_likelihoods))


def mixture_nll(weight: torch.Tensor, bias: torch.Tensor, features: ExitFeatures) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean mixture NLL (nats) and the log mixture weights (tokens, N) under gates (weight, bias)."""
    gate_logits = (features.gate_inputs * weight).sum(-1) + bias  # (tokens, N-1)
    log_weights = log_mixture_weights(gate_logits)
    return -(log_weights + features.log_likelihoods).logsumexp(-1).mean(), log_weights


GATE_L2 = 1e-3  # ridge on the standardised gate weights: 576 weights per gate, a few thousand fitted tokens


def fit_gates(features: ExitFeatures, depth_fractions: list[float], depth_penalty: float, steps: int = 200,
              seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Gate weights (N-1, d) and biases (N-1,) minimising mixture NLL + lambda * expected depth (+ a small ridge).

    The gate inputs are residual streams with a few huge, nearly constant coordinates. Fitted on them as
    they are, Adam (lr 0.02, round 3) moved every weight by lr per step, so within a few steps every gate
    logit stood near -100, sigmoid' vanished and no gate ever opened (SmolLM2: mass 1e-20, dev cost 0.0000
    at every lambda). So the fit runs on standardised inputs, full batch with L-BFGS (a logistic-regression-
    sized problem), and the scale is folded back into (weight, bias) afterwards, exactly.
    """
    torch.manual_seed(seed)
    inputs = features.gate_inputs
    mean, std = inputs.mean(0), inputs.std(0) + 1e-6  # (N-1, d) each
    standardised = ExitFeatures((inputs - mean) / std, features.log_likelihoods)
    n_gates, d = inputs.shape[1:]
    weight = torch.zeros(n_gates, d, requires_grad=True)
    bias = torch.full((n_gates,), START_BIAS, requires_grad=True)
    optimizer = torch.optim.LBFGS([weight, bias], lr=1.0, max_iter=steps, history_size=20, line_search_fn="strong_wolfe")

    def objective() -> torch.Tensor:
        optimizer.zero_grad()
        nll, log_weights = mixture_nll(weight, bias, standardised)
        loss = nll + depth_penalty * expected_depth(log_weights, depth_fractions).mean() + GATE_L2 * weight.pow(2).sum()
        loss.backward()
        return loss

    optimizer.step(objective)
    with torch.no_grad():  # w.(x - mean)/std + b = (w/std).x + (b - sum(w mean/std))
        raw = weight / std
        return raw, bias - (raw * mean).sum(-1)


@torch.no_grad()
def install_gates(model: NviumForCausalLM, weight: torch.Tensor, bias: torch.Tensor) -> NviumForCausalLM:
    """Write fitted gates into the model (in place)."""
    for e, gate in enumerate(model.gates):
        gate.weight.copy_(weight[e:e + 1].to(gate.weight))
        gate.bias.copy_(bias[e:e + 1].to(gate.bias))
    return model
