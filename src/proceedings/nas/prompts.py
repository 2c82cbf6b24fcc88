"""Turning requests into padded token batches: context templates, subject and target positions.

Batches are right-padded so that positions of the subject do not move, and always carry an
attention mask (SmolLM2's pad token is its EOS).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from proceedings.nas.requests import EditRequest, subject_last_index, target_ids

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase


def context_templates(model: "PreTrainedModel", tok: "PreTrainedTokenizerBase",
                      prefixes: Sequence[str], length: int) -> list[str]:
    """'{}' plus '<prefix continuation>. {}' for each prefix, generated greedily by the model (ROME §3)."""
    import torch

    templates = ["{}"]
    device = next(model.parameters()).device
    for prefix in prefixes:
        ids = torch.tensor([tok(prefix).input_ids], device=device)
        with torch.no_grad():
            out = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=length,
                                 do_sample=False, pad_token_id=tok.pad_token_id)
        text = tok.decode(out[0], skip_special_tokens=True).replace("{", " ").replace("}", " ")
        templates.append(" ".join(text.split()) + ". {}")
    return templates


@dataclass
class TokenBatch:
    """Right-padded ids with per-row subject position and the positions that predict each target token."""

    input_ids: "torch.Tensor"  # (rows, seq)
    attention_mask: "torch.Tensor"  # (rows, seq)
    subject_pos: "torch.Tensor"  # (rows,)
    owner: "torch.Tensor"  # (rows,) index of the request each row belongs to
    target_rows: "torch.Tensor"  # (n_target_tokens,) row of each target token
    target_pos: "torch.Tensor"  # (n_target_tokens,) position whose logits predict it
    target_tok: "torch.Tensor"  # (n_target_tokens,)


def build_batch(tok: "PreTrainedTokenizerBase", rows: list[tuple[int, str, str, list[int]]],
                device: "torch.device | str" = "cpu") -> TokenBatch:
    """rows = (request index, text template with '{}', subject, continuation ids to append)."""
    import torch

    ids, subj, owner, t_rows, t_pos, t_tok = [], [], [], [], [], []
    for row, (index, template, subject, continuation) in enumerate(rows):
        prompt_ids, last = subject_last_index(tok, template, subject, case_id=str(index))
        ids.append(prompt_ids + continuation)
        subj.append(last)
        owner.append(index)
        for offset, token in enumerate(continuation):
            t_rows.append(row)
            t_pos.append(len(prompt_ids) - 1 + offset)
            t_tok.append(token)
    width = max(map(len, ids))
    pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
    input_ids = torch.tensor([seq + [pad] * (width - len(seq)) for seq in ids], device=device)
    mask = torch.tensor([[1] * len(seq) + [0] * (width - len(seq)) for seq in ids], device=device)

    def as_tensor(values):
        return torch.tensor(values, dtype=torch.long, device=device)

    return TokenBatch(input_ids, mask, as_tensor(subj), as_tensor(owner), as_tensor(t_rows),
                      as_tensor(t_pos), as_tensor(t_tok))


def rewriting_rows(tok, requests: Sequence[EditRequest], templates: Sequence[str]):
    """Each template around each prompt, followed by the target (its last token is never an input
    to a scored position, as in ROME's compute_v)."""
    rows = []
    for index, request in enumerate(requests):
        target = target_ids(tok, request.target_new, request.case_id)
        for template in templates:
            rows.append((index, template.format(request.prompt), request.subject, target))
    return rows


def key_rows(requests: Sequence[EditRequest], templates: Sequence[str]):
    """Each template around each prompt, nothing appended (MEMIT compute_ks)."""
    return [(index, template.format(request.prompt), request.subject, [])
            for index, request in enumerate(requests) for template in templates]
