"""Teacher and student language models: building, batching, sampling (spec §2.1-2.2).

The student is SmolLM2 cut to its first layers (same tokenizer, a real capacity gap); the teacher
is SmolLM2-135M fine-tuned on generated pairs. Teacher and student must share a tokenizer: the
token-level KL terms of OPD and RWOPD are meaningless otherwise (the TRL bug class, spec §7).
"""

from __future__ import annotations

import copy
import logging

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


def encode_pairs(tokenizer, prompts: list[str], completions: list[str], device="cpu"):
    """Right-padded (input_ids, attention_mask, completion_mask) for prompt+completion pairs."""
    import torch

    rows, masks = [], []
    for prompt, completion in zip(prompts, completions):
        p = tokenizer(prompt, add_special_tokens=False)["input_ids"]
        c = tokenizer(completion, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
        rows.append(p + c)
        masks.append([0] * len(p) + [1] * len(c))
    width = max(map(len, rows))
    pad = tokenizer.pad_token_id
    ids = torch.tensor([r + [pad] * (width - len(r)) for r in rows], device=device)
    attention = torch.tensor([[1] * len(r) + [0] * (width - len(r)) for r in rows], device=device)
    completion = torch.tensor([m + [0] * (width - len(m)) for m in masks], device=device)
    return ids, attention, completion


def supervised_batch(tokenizer, pairs, device="cpu"):
    """Encode generated/benchmark pairs (prompt text, reference SVA) for cross-entropy training."""
    return encode_pairs(tokenizer, [format_prompt(p.prompt) for p in pairs], [target_text(p.sva) for p in pairs],
                        device)


def sample(model, tokenizer, prompts: list[str], num_samples: int, max_new_tokens: int,
           temperature: float = 1.0) -> list[list[str]]:
    """`num_samples` completions per prompt (decoded text, up to the first newline)."""
    import torch

    tokenizer.padding_side = "left"
    batch = tokenizer(prompts, return_tensors="pt", padding=True, add_special_tokens=False).to(model.device)
    with torch.no_grad():
        out = model.generate(**batch, do_sample=temperature > 0, temperature=max(temperature, 1e-5), top_p=1.0,
                             top_k=0, max_new_tokens=max_new_tokens, num_return_sequences=num_samples,
                             pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id)
    tokenizer.padding_side = "right"
    texts = tokenizer.batch_decode(out[:, batch["input_ids"].shape[1]:], skip_special_tokens=True)
    texts = [t.split("\n", 1)[0] for t in texts]
    return [texts[i * num_samples:(i + 1) * num_samples] for i in range(len(prompts))]


def completion_logprobs(model, ids, attention, completion):
    """Log-softmax over the vocabulary only where a completion token is predicted.

    Returns (logp (N, V), row (N,), target (N,)) for the N completion positions: the LM head of a
    49k-token vocabulary dominates the cost, and prompt positions never enter a loss.
    """
    import torch.nn.functional as F

    hidden = model.model(input_ids=ids, attention_mask=attention).last_hidden_state[:, :-1]  # (B, T-1, H)
    where = completion[:, 1:].bool()
    rows = where.nonzero()[:, 0]
    logits = model.lm_head(hidden[where])  # (N, V)
    return F.log_softmax(logits.float(), dim=-1), rows, ids[:, 1:][where]
