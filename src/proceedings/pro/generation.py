"""Plain sampling from a (released) model, and perplexity under a reference model (spec §2.5).

Evaluation decodes the way a user of open weights would: multinomial sampling, temperature 1, no
top-k (Gu et al.), a fixed number of new tokens.  Only the decoding-time KGW reference adds a
logits processor; a weight watermark needs none.
"""

from __future__ import annotations

import math

import torch

from proceedings.core.errors import ProceedingsError


@torch.no_grad()
def sample(model, prompts: torch.Tensor, new_tokens: int, batch_size: int = 16, seed: int = 0,
           logits_processor=None, progress: str | None = None, temperature: float = 1.0,
           top_p: float = 1.0) -> torch.Tensor:
    """(P, L) equal-length prompts -> (P, new_tokens) sampled continuations (evaluation: temperature 1,
    top-p 1, i.e. plain sampling)."""
    if not temperature > 0 or not 0 < top_p <= 1:
        raise ProceedingsError(f"temperature={temperature}, top_p={top_p}: need temperature > 0 and 0 < top_p <= 1")
    from proceedings.core.progress import progress_bar
    from transformers import LogitsProcessorList

    torch.manual_seed(seed)
    processors = LogitsProcessorList([logits_processor] if logits_processor else [])
    device = next(model.parameters()).device
    outputs = []
    starts = range(0, len(prompts), batch_size)
    for start in progress_bar(starts, desc=progress or "sample", disable=progress is None, leave=False):
        batch = prompts[start : start + batch_size].to(device)
        generated = model.generate(
            input_ids=batch, attention_mask=torch.ones_like(batch), do_sample=True, top_k=0, top_p=top_p,
            temperature=temperature, max_new_tokens=new_tokens, min_new_tokens=new_tokens,
            logits_processor=processors, pad_token_id=model.config.eos_token_id,
        )
        outputs.append(generated[:, batch.shape[1] :].cpu())
    return torch.cat(outputs)


@torch.no_grad()
def perplexity(model, prompts: torch.Tensor, continuations: torch.Tensor, batch_size: int = 16) -> float:
    """Mean over texts of exp(mean NLL of the continuation given its prompt) under `model`."""
    device = next(model.parameters()).device
    new_tokens = continuations.shape[1]
    per_text = []
    for start in range(0, len(prompts), batch_size):
        targets = continuations[start : start + batch_size].to(device)
        ids = torch.cat([prompts[start : start + batch_size].to(device), targets], 1)
        # logits only where they predict a continuation token: the prompt's would be thrown away
        logits = model(input_ids=ids, logits_to_keep=new_tokens + 1).logits[:, :-1].float()
        nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction="none")
        per_text.extend(math.exp(v) for v in nll.view(len(ids), new_tokens).mean(1).tolist())
    return sum(per_text) / len(per_text)
