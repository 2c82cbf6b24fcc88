"""Solving the target value vector v* of each request (ROME/MEMIT compute_z, spec §2.1 step 2).

For request r, optimise delta_r in R^d, added to the output of the last edit layer at the subject's
last token in every rewriting prompt, so that the model predicts target_new:

    loss_r = mean NLL(target_new)  +  kl_factor * KL(p_orig || p_edit) on "{subject} is a"
             + v_weight_decay * ||delta_r|| / ||h0_r||^2,      with ||delta_r|| <= clamp * ||h0_r||.

Then v*_r = v0_r + delta_r, where v0_r is the MLP output at that position. This v* is what NAS
rescales. The requests of a batch are solved together but each converges on its own: a request
stops (and its delta is frozen) at the first step its target NLL is below `early_stop_nll`, and
only requests still running take part in later forwards. `v_num_grad_steps` is a cap on gradient
steps; a solve that reaches it did not converge, and the solution says which requests did.
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
CLAMP_TOLERANCE = 1e-3  # ||delta|| within 0.1 % of the radius counts as held by the clamp


@dataclass
class ValueSolution:
    h0: "torch.Tensor"  # (n, d) block output at the subject (first template = bare prompt)
    v0: "torch.Tensor"  # (n, d) MLP output there
    delta: "torch.Tensor"  # (n, d)
    nll: "torch.Tensor"  # (n,) target NLL where each request stopped
    steps: "torch.Tensor"  # (n,) gradient steps each request took
    capped: "torch.Tensor"  # (n,) bool: stopped by the step cap, not by reaching the NLL target
    clamped: "torch.Tensor"  # (n,) bool: ||delta|| ends on the clamp radius

    @property
    def v_star(self) -> "torch.Tensor":
        return self.v0 + self.delta


def solve_values(model: "PreTrainedModel", tok: "PreTrainedTokenizerBase", layout: ModuleLayout,
                 hp: EditHparams, requests: Sequence[EditRequest], templates: Sequence[str]) -> ValueSolution:
    """Optimise one delta per request at layer hp.layers[-1]; the model's weights are not changed."""
    import torch

    layer, n = hp.layers[-1], len(requests)
    device = next(model.parameters()).device
    requires = [p.requires_grad for p in model.parameters()]
    model.requires_grad_(False)
    delta = torch.zeros(n, model.config.hidden_size, device=device, requires_grad=True)
    optimizer = torch.optim.Adam([delta], lr=hp.v_lr)
    nll = torch.zeros(n, device=device)
    steps = torch.zeros(n, dtype=torch.long, device=device)
    running = torch.ones(n, dtype=torch.bool, device=device)
    h0 = v0 = kl_init = None
    try:
        for step in range(hp.v_num_grad_steps + 1):
            active = running.nonzero().squeeze(1)  # (a,)
            batch = _solve_batch(tok, [requests[i] for i in active.tolist()], templates, device)
            rows_delta = delta[active]  # (a, d), differentiable into delta
            with recording(model, layout, [layer], batch) as found, adding_at_subject(model, layout, layer, batch, rows_delta):
                hidden = forward_hidden(model, batch)  # (rows, seq, d)
            if h0 is None:  # recorded before delta moves: the unedited activations of all requests
                first_rows = torch.arange(n, device=device) * len(templates)  # each request's bare-prompt row
                h0, v0 = found["h", layer][first_rows], found["value", layer][first_rows]
            step_nll, kl_logp = _read_out(model, hidden, batch, len(active))
            if kl_init is None:
                kl_init = kl_logp.detach()
            nll[active] = step_nll.detach()
            converged = step_nll.detach() < hp.early_stop_nll
            running[active[converged]] = False
            if not running.any() or step == hp.v_num_grad_steps:
                break
            keep = ~converged  # only requests that go on contribute a loss
            kl = torch.nn.functional.kl_div(kl_logp, kl_init[active], log_target=True, reduction="none").sum(-1)
            decay = hp.v_weight_decay * rows_delta.norm(dim=1) / h0[active].norm(dim=1) ** 2
            frozen = delta.detach().clone()
            optimizer.zero_grad()
            ((step_nll + hp.kl_factor * kl + decay)[keep]).sum().backward()  # independent requests: sum
            optimizer.step()
            steps[running] += 1
            with torch.no_grad():
                delta[~running] = frozen[~running]  # Adam's momentum must not move a finished request
                limit = hp.clamp_norm_factor * h0.norm(dim=1, keepdim=True)  # project into ||delta|| <= clamp ||h0||
                delta.mul_(torch.clamp(limit / delta.norm(dim=1, keepdim=True).clamp_min(1e-12), max=1.0))
    finally:
        for param, flag in zip(model.parameters(), requires):
            param.requires_grad_(flag)
    delta = delta.detach().clone()
    radius = hp.clamp_norm_factor * h0.norm(dim=1)
    return ValueSolution(h0=h0, v0=v0, delta=delta, nll=nll, steps=steps, capped=running.clone(),
                         clamped=delta.norm(dim=1) >= (1 - CLAMP_TOLERANCE) * radius)


def _solve_batch(tok, requests: Sequence[EditRequest], templates: Sequence[str], device):
    """The rewriting rows of `requests` (template-major per request), then one KL row per request."""
    rows = rewriting_rows(tok, requests, templates) + [(i, KL_TEMPLATE, r.subject, []) for i, r in enumerate(requests)]
    return build_batch(tok, rows, device)


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
