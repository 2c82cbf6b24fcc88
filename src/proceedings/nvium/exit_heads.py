"""Training the intermediate exits of a retrofitted, frozen model (spec §2.4: "exit norms, optionally LoRA").

With SmolLM2's layers frozen, an untrained intermediate exit is the logit lens: 6.4-7.8 bits per byte
worse than the last layer (round 2), so no router can stop there. Each intermediate exit gets a
rank-r residual adapter (model.ExitAdapter) and its own norm, trained on the cached residual streams
(router_fit.exit_hiddens) to predict the next token through the frozen, tied unembedding, each exit on
its own: a low-rank "tuned lens" (Belrose et al., 2023), started in closed form by least squares
towards the last layer's stream (without that start, three epochs from the logit lens left the exits
1.2-1.8 bpb behind the last one and no token exited). The pretrained layers, the embedding and the
last exit never change, so plain SmolLM2 stays the baseline. The gates are fitted afterwards, on the
trained exits (router_fit.fit_gates). Every epoch is checkpointed; an interrupted fit resumes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import torch

from proceedings.core.runtime import load_checkpoint, save_checkpoint
from proceedings.nvium.model import NviumForCausalLM
from proceedings.nvium.router_fit import ExitHiddens, exit_log_likelihood


@dataclass
class HeadFit:
    epochs: int = 0  # epochs done
    losses: list[float] = field(default_factory=list)  # mean next-token NLL (nats) over the exits, per epoch


def exit_head_parameters(model: NviumForCausalLM) -> list[torch.nn.Parameter]:
    """The intermediate exits' adapters and norms: all that exit-head training may change."""
    return [p for m in (*model.exit_adapters, *model.exit_norms[:-1]) for p in m.parameters()]


RIDGE = 1e-3  # least-squares start: ridge, relative to the mean squared input coordinate


@torch.no_grad()
def least_squares_start(model: NviumForCausalLM, data: ExitHiddens) -> None:
    """Set every adapter in closed form so that its exit starts out predicting what the last layer predicts.

    For exit e the adapter adds B A h_e; the target is the last layer's stream rescaled to h_e's size,
    t = rms(h_e) h_L / rms(h_L), so that norm_e(h_e + B A h_e) ~ norm_L(h_L) (norm_e starts as a copy of
    the last norm). B A is the rank-r ridge regression of t - h_e on h_e: the full least-squares map,
    projected on the top r directions of its fitted values (reduced-rank regression). A linear "tuned
    lens" without the 49 k-word head: on SmolLM2's layer-8 exit it scores 6.4 nats/token at rank 576 and
    8.0 at rank 64, where three epochs of cross-entropy from the logit lens (20.1) reached 9.0.
    """
    last = data.hiddens[:, -1]
    target_direction = last / last.pow(2).mean(-1, keepdim=True).sqrt()
    for e, adapter in enumerate(model.exit_adapters):
        h = data.hiddens[:, e].double()
        residual = target_direction.double() * h.pow(2).mean(-1, keepdim=True).sqrt() - h
        gram = h.T @ h
        ridge = RIDGE * gram.diagonal().mean() * torch.eye(len(gram), dtype=gram.dtype)
        full = torch.linalg.solve(gram + ridge, h.T @ residual)  # (d, d): residual ~ h @ full
        rank = adapter.down.out_features
        directions = torch.linalg.svd(h @ full, full_matrices=False).Vh[:rank].T  # (d, r)
        adapter.down.weight.copy_((full @ directions).T.to(adapter.down.weight))  # A = (full V)^T
        adapter.up.weight.copy_(directions.to(adapter.up.weight))  # B = V: h A^T B^T = h full V V^T


def fit_exit_heads(model: NviumForCausalLM, data: ExitHiddens, epochs: int, checkpoint: Path, lr: float = 1e-3,
                   batch_size: int = 256, seed: int = 0, progress: bool = True) -> HeadFit:
    """The least-squares start, then sum_e -log p_e(y) over the intermediate exits (Adam, shuffled
    minibatches), in place."""
    from proceedings.core.progress import progress_bar

    params = exit_head_parameters(model)
    optimizer = torch.optim.Adam(params, lr=lr)
    fit = HeadFit()
    state = load_checkpoint(checkpoint)
    if state is not None:
        model.load_state_dict(state["model"], strict=False)
        optimizer.load_state_dict(state["optimizer"])
        fit = HeadFit(**state["fit"])
    else:
        least_squares_start(model, data)
    frozen = {p: p.requires_grad for p in model.parameters()}
    model.requires_grad_(False)  # the unembedding is 28 M shared weights: no gradient for it
    for p in params:
        p.requires_grad_(True)
    n_heads, steps = model.config.n_exits - 1, -(-len(data) // batch_size)
    bar = progress_bar(total=epochs * steps, initial=fit.epochs * steps, desc="exit heads", disable=not progress)
    try:
        for epoch in range(fit.epochs, epochs):
            order = torch.randperm(len(data), generator=torch.Generator().manual_seed(seed * 1000 + epoch))
            total = 0.0
            for i in range(0, len(data), batch_size):
                rows = order[i:i + batch_size]
                h, y = data.hiddens[rows], data.targets[rows]
                loss = -sum(exit_log_likelihood(model, e, h[:, e], y).mean() for e in range(n_heads)) / n_heads
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                total += loss.item() * len(rows)
                bar.update(1)
                bar.set_postfix(nll=f"{loss.item():.3f}")
            fit.epochs, fit.losses = epoch + 1, [*fit.losses, total / len(data)]
            heads = {name: value for name, value in model.state_dict().items()
                     if name.startswith("exit_adapters.") or name.startswith("exit_norms.")}
            save_checkpoint(checkpoint, {"model": heads, "optimizer": optimizer.state_dict(), "fit": vars(fit)})
    finally:
        bar.close()
        for p, flag in frozen.items():
            p.requires_grad_(flag)
    return fit
