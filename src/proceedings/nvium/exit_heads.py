"""Training the intermediate exits of a retrofitted, frozen model (spec §2.4: "exit norms, optionally LoRA").

With SmolLM2's layers frozen, an untrained intermediate exit is the logit lens: 6.4-7.8 bits per byte
worse than the last layer (round 2), so no router can stop there. Each intermediate exit gets a
rank-r residual adapter (model.ExitAdapter) and its own norm, trained on the cached residual streams
(router_fit.exit_hiddens) to predict the next token through the frozen, tied unembedding, each exit on
its own: a low-rank "tuned lens" (Belrose et al., 2023). The pretrained layers, the embedding and the
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


def fit_exit_heads(model: NviumForCausalLM, data: ExitHiddens, epochs: int, checkpoint: Path, lr: float = 1e-3,
                   batch_size: int = 256, seed: int = 0, progress: bool = True) -> HeadFit:
    """Minimise sum_e -log p_e(y) over the intermediate exits (Adam, shuffled minibatches), in place."""
    from proceedings.core.progress import progress_bar

    params = exit_head_parameters(model)
    optimizer = torch.optim.Adam(params, lr=lr)
    fit = HeadFit()
    state = load_checkpoint(checkpoint)
    if state is not None:
        model.load_state_dict(state["model"], strict=False)
        optimizer.load_state_dict(state["optimizer"])
        fit = HeadFit(**state["fit"])
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
