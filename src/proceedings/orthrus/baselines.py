"""What Orthrus is compared against (issue 20): the same frozen model decoding autoregressively (the
reference, `core.speculative.autoregressive_decode`), and Hugging Face prompt lookup (n-gram drafts from
the prompt, verified by the same model: lossless, no training, no added weights)."""

from __future__ import annotations

import time
from typing import Sequence

import torch

from proceedings.core.bench import DecodeTrace


def prompt_lookup_decode(base, prompt_ids: Sequence[int], max_new_tokens: int, drafts: int = 7,
                         eos_token_id: int | None = None) -> DecodeTrace:
    """Greedy `generate` with `prompt_lookup_num_tokens=drafts` (transformers' assisted generation)."""
    device = next(base.parameters()).device
    ids = torch.tensor([list(prompt_ids)], device=device)
    pad = base.config.pad_token_id if base.config.pad_token_id is not None else 0
    start = time.perf_counter()
    with torch.inference_mode():
        out = base.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=max_new_tokens,
                            do_sample=False, prompt_lookup_num_tokens=drafts, pad_token_id=pad,
                            eos_token_id=eos_token_id)
    total = time.perf_counter() - start
    tokens = out[0, ids.shape[1]:].tolist()
    return DecodeTrace(tokens, [total / max(len(tokens), 1)] * len(tokens), total)
