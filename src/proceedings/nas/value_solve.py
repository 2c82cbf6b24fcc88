"""Solving the target value vector v* of each request (ROME/MEMIT compute_z, spec §2.1 step 2).

For request r, optimise delta_r in R^d, added to the output of the last edit layer at the subject's
last token in every rewriting prompt, so that the model predicts target_new:

    loss_r = mean NLL(target_new)  +  kl_factor * KL(p_orig || p_edit) on "{subject} is a"
             + v_weight_decay * ||delta_r|| / ||h0_r||^2,      with ||delta_r|| <= clamp * ||h0_r||.

Then v*_r = v0_r + delta_r, where v0_r is the MLP output at that position. This v* is what NAS
rescales. All requests of a batch are solved together (one delta each, independent losses).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from proceedings.nas.activations import adding_at_subject, forward_hidden, recording
from proceedings.nas.hparams import EditHparams
from proceedings.nas.model_layout import ModuleLayout
from proceedings.nas.prompts import build_batch, rewriting_rows
from proceedings.nas.requests import EditRequest

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

KL_TEMPLATE = "{} is a"  # ROME/MEMIT's essence prompt


@dataclass
class ValueSolution:
    h0: "torch.Tensor"  # (n, d) block output at the subject (first template = bare prompt)
    v0: "torch.Tensor"  # (n, d) MLP output there
    delta: "torch.Tensor"  # (n, d)
    nll: "torch.Tensor"  # (n,) target NLL at the last step

    @property
    def v_star(self) -> "torch.Tensor":
        return self.v0 + self.delta


def solve_values(model: "PreTrainedModel", tok: "PreTrainedTokenizerBase", layout: ModuleLayout,
                 hp: EditHparams, requests: Sequence[EditRequest], templates: Sequence[str]) -> ValueSolution:
    """Optimise one delta per request at layer hp.layers[-1]; the model's weights are not changed."""
    import torch
    import torch.nn.functional as F

    layer, n = hp.layers[-1], len(requests)
    device = next(model.parameters()).device
    rows = rewriting_rows(tok, requests, templates) + [(i, KL_TEMPLATE, r.subject, []) for i, r in enumerate(requests)]
    batch = build_batch(tok, rows, device)
    first_rows = torch.arange(n, device=device) * len(templates)  # the bare-prompt row of each request
    requires = [p.requires_grad for p in model.parameters()]
    model.requires_grad_(False)
    delta = torch.zeros(n, model.config.hidden_size, device=device, requires_grad=True)
    optimizer = torch.optim.Adam([delta], lr=hp.v_lr)
    h0 = v0 = kl_init = None
    try:
        for step in range(hp.v_num_grad_steps):
            optimizer.zero_grad()
            with recording(model, layout, [layer], batch) as found, adding_at_subject(model, layout, layer, batch, delta):
                hidden = forward_hidden(model, batch)  # (rows, seq, d)
            if h0 is None:  # recorded before delta is added: the unedited activations
                h0, v0 = found["h", layer][first_rows], found["value", layer][first_rows]
            nll, kl_logp = _read_out(model, hidden, batch, n)
            if kl_init is None:
                kl_init = kl_logp.detach()
            kl = F.kl_div(kl_logp, kl_init, log_target=True, reduction="none").sum(-1)  # KL(orig || edit)
            decay = hp.v_weight_decay * delta.norm(dim=1) / h0.norm(dim=1) ** 2
            if nll.max().item() < hp.early_stop_nll or step == hp.v_num_grad_steps - 1:
                break
            (nll + hp.kl_factor * kl + decay).sum().backward()  # requests are independent: sum their losses
            optimizer.step()
            with torch.no_grad():  # project into the ball ||delta|| <= clamp * ||h0||
                limit = hp.clamp_norm_factor * h0.norm(dim=1, keepdim=True)
                delta.mul_(torch.clamp(limit / delta.norm(dim=1, keepdim=True).clamp_min(1e-12), max=1.0))
    finally:
        for param, flag in zip(model.parameters(), requires):
            param.requires_grad_(flag)
    return ValueSolution(h0=h0, v0=v0, delta=delta.detach().clone(), nll=nll.detach())


def _read_out(model, hidden, batch, n: int):
    """(per-request mean NLL of target_new over its tokens and templates, next-token log-probs on the
    KL rows); the LM head is applied only at these positions."""
    import torch

    head = model.get_output_embeddings()
    logp = torch.log_softmax(head(hidden[batch.target_rows, batch.target_pos]).float(), -1)
    token_nll = -logp.gather(1, batch.target_tok[:, None]).squeeze(1)
    owner = batch.owner[batch.target_rows]
    nll = torch.zeros(n, device=hidden.device).index_add(0, owner, token_nll) / torch.bincount(owner, minlength=n)
    kl_rows = torch.arange(len(batch.owner) - n, len(batch.owner), device=hidden.device)  # the last n rows
    kl_pos = batch.attention_mask[kl_rows].sum(1) - 1
    return nll, torch.log_softmax(head(hidden[kl_rows, kl_pos]).float(), -1)
