"""Teacher and student language models: building, batching, sampling (spec §2.1-2.2).

The student is SmolLM2-135M at full depth (or cut to its first layers), the teacher SmolLM2-135M
fine-tuned on generated pairs. Teacher and student must share a tokenizer: the
token-level KL terms of OPD and RWOPD are meaningless otherwise (the TRL bug class, spec §7).
"""

from __future__ import annotations

import copy
import logging
from dataclasses import dataclass

from proceedings.core.errors import ProceedingsError
from proceedings.rwopd.prompting import format_prompt, target_text

log = logging.getLogger(__name__)


def truncated_student(model, num_layers: int):
    """A copy of `model` keeping its embeddings, its first `num_layers` blocks, norm and head."""
    if not 1 <= num_layers <= model.config.num_hidden_layers:
        raise ProceedingsError(f"student layers must be in 1..{model.config.num_hidden_layers}, got {num_layers}")
    student = copy.deepcopy(model)
    student.model.layers = student.model.layers[:num_layers]
    student.config.num_hidden_layers = num_layers
    if getattr(student.config, "layer_types", None):
        student.config.layer_types = student.config.layer_types[:num_layers]
    return student


def require_same_tokenizer(teacher_tok, student_tok) -> None:
    """Refuse teacher/student pairs whose vocabularies differ (names both)."""
    probe = "assert property (@(posedge clk) sig_A |-> ##[1:3] s_eventually sig_B);"
    if len(teacher_tok) != len(student_tok) or teacher_tok(probe)["input_ids"] != student_tok(probe)["input_ids"]:
        raise ProceedingsError(
            f"teacher tokenizer ({teacher_tok.name_or_path}, {len(teacher_tok)} tokens) and student tokenizer "
            f"({student_tok.name_or_path}, {len(student_tok)} tokens) differ; distillation needs one vocabulary")


@dataclass
class RolloutBatch:
    """Prompts encoded once and the completions that continue them: completion i continues prompt owner[i].

    Prompts are left-padded (their last position is real in every row, so it predicts the first
    completion token); completions are right-padded and end with EOS. G rollouts of one prompt share
    its forward pass (`completion_logprobs`), which is most of the tokens at G = 8.
    """

    prompt_ids: "torch.Tensor"  # (P, Tp)
    prompt_attention: "torch.Tensor"  # (P, Tp)
    completion_ids: "torch.Tensor"  # (N, Tc)
    completion_mask: "torch.Tensor"  # (N, Tc)
    owner: "torch.Tensor"  # (N,) row of prompt_ids that completion i continues

    @property
    def size(self) -> int:
        return self.completion_ids.shape[0]

    def tokens(self) -> int:
        return int(self.completion_mask.sum())


def encode_rollouts(tokenizer, prompts: list[str], completions: list[str], owner: list[int],
                    device="cpu") -> RolloutBatch:
    """Encode `completions[i]` as a continuation of `prompts[owner[i]]` (prompts nobody continues are dropped)."""
    import torch

    used = sorted(set(owner))
    row_of = {p: r for r, p in enumerate(used)}
    heads = [tokenizer(prompts[p], add_special_tokens=False)["input_ids"] for p in used]
    tails = [tokenizer(c, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id] for c in completions]
    pad, tp, tc = tokenizer.pad_token_id, max(map(len, heads)), max(map(len, tails))
    return RolloutBatch(
        prompt_ids=torch.tensor([[pad] * (tp - len(h)) + h for h in heads], device=device),
        prompt_attention=torch.tensor([[0] * (tp - len(h)) + [1] * len(h) for h in heads], device=device),
        completion_ids=torch.tensor([t + [pad] * (tc - len(t)) for t in tails], device=device),
        completion_mask=torch.tensor([[1] * len(t) + [0] * (tc - len(t)) for t in tails], device=device),
        owner=torch.tensor([row_of[p] for p in owner], device=device))


def supervised_batch(tokenizer, pairs, device="cpu") -> RolloutBatch:
    """Encode generated/benchmark pairs (prompt text, reference SVA) for cross-entropy training."""
    return encode_rollouts(tokenizer, [format_prompt(p.prompt) for p in pairs], [target_text(p.sva) for p in pairs],
                           list(range(len(pairs))), device)


def _prefill(model, ids, attention):
    """Forward over left-padded prompts with a KV cache: (last hidden state (B, T, H), cache)."""
    positions = (attention.cumsum(-1) - 1).clamp(min=0)  # real tokens count from 0 behind the left padding
    out = model.model(input_ids=ids, attention_mask=attention, position_ids=positions, use_cache=True)
    return out.last_hidden_state, out.cache


def sample(model, tokenizer, prompts: list[str], num_samples: int, max_new_tokens: int,
           temperature: float = 1.0) -> list[list[str]]:
    """`num_samples` completions per prompt (decoded text, up to the first newline).

    Each prompt is run through the model once; its KV cache is repeated for its samples, which
    then decode in one batch (the same tokens as prompting every copy: tested).
    """
    import torch

    tokenizer.padding_side = "left"
    batch = tokenizer(prompts, return_tensors="pt", padding=True, add_special_tokens=False).to(model.device)
    tokenizer.padding_side = "right"
    ids, attention = batch["input_ids"], batch["attention_mask"]
    with torch.no_grad():
        _, cache = _prefill(model, ids[:, :-1], attention[:, :-1])  # generate feeds the last prompt token itself
        cache.batch_repeat_interleave(num_samples)
        out = model.generate(input_ids=ids.repeat_interleave(num_samples, 0),
                             attention_mask=attention.repeat_interleave(num_samples, 0), cache=cache,
                             do_sample=temperature > 0, temperature=max(temperature, 1e-5), top_p=1.0, top_k=0,
                             max_new_tokens=max_new_tokens, pad_token_id=tokenizer.pad_token_id,
                             eos_token_id=tokenizer.eos_token_id)
    texts = tokenizer.batch_decode(out[:, ids.shape[1]:], skip_special_tokens=True)
    texts = [t.split("\n", 1)[0] for t in texts]
    return [texts[i * num_samples:(i + 1) * num_samples] for i in range(len(prompts))]


def completion_logprobs(model, batch: RolloutBatch):
    """Log-softmax over the vocabulary only where a completion token is predicted.

    Returns (logp (N, V), row (N,), target (N,)) for the N completion positions: the LM head of a
    49k-token vocabulary dominates the cost, and prompt positions never enter a loss. Each prompt
    is encoded once and its KV cache selected for every completion that continues it.
    """
    import torch
    import torch.nn.functional as F

    prompt_hidden, cache = _prefill(model, batch.prompt_ids, batch.prompt_attention)  # (P, Tp, H)
    cache.batch_select_indices(batch.owner)
    width = batch.completion_ids.shape[1]
    start = batch.prompt_attention.sum(-1)[batch.owner, None]  # (N, 1) position of each completion's first token
    positions = start + torch.arange(width, device=start.device)
    attention = torch.cat([batch.prompt_attention[batch.owner], batch.completion_mask], dim=1)
    hidden = model.model(input_ids=batch.completion_ids, attention_mask=attention, position_ids=positions,
                         cache=cache).last_hidden_state  # (N, Tc, H)
    # the state before completion token t: the prompt's last for t = 0, else the completion's t - 1
    before = torch.cat([prompt_hidden[batch.owner, -1:], hidden[:, :-1]], dim=1)  # (N, Tc, H)
    where = batch.completion_mask.bool()
    logits = model.lm_head(before[where])  # (n_tokens, V)
    return F.log_softmax(logits.float(), dim=-1), where.nonzero()[:, 0], batch.completion_ids[where]
