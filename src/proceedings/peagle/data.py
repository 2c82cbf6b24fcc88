"""Prompts and targets: a pattern grammar with a tiny target trained on it (the tiny preset;
`core.pattern_lm`, shared with Orthrus), and ShareGPT first turns with SmolLM2's own greedy responses
(the small preset; `core.selfdistill`).

The tiny preset's prompts draw their motifs from a small *library* (`motif_library`: motifs that share no
token, so each token has one successor) instead of a fresh random motif per prompt. A drafter then learns
what it learns on language, statistics that hold across the data and so on held-out prompts too; with a
fresh motif per prompt a 1-layer drafter memorised its 40 training motifs (depth-0 top-1 0.81 on them,
0.31 held out) and with 240 of them learnt no copying in 60 steps (0.23), so tau stayed at ~1.1.
"""

from __future__ import annotations

import torch

from proceedings.core.errors import ProceedingsError
from proceedings.core.pattern_lm import TinyTargetConfig, motif_library, pattern_prompts, pattern_sequences, tiny_target

__all__ = ["TinyTargetConfig", "greedy_continuations", "motif_library", "pattern_prompts", "pattern_sequences",
           "tiny_target", "warm_up"]


def greedy_continuations(target, prompts: list[list[int]], new_tokens: int) -> list[list[int]]:
    """prompt + the target's `new_tokens` greedy tokens, for equally long prompts decoded as one batch on a
    KV cache (training data: one batched forward per token instead of one per prompt and token)."""
    from transformers import DynamicCache

    if len({len(p) for p in prompts}) > 1:
        raise ProceedingsError("batched greedy continuation needs prompts of one length")
    ids, cache, steps = torch.tensor(prompts), DynamicCache(), []
    with torch.inference_mode():
        inputs = ids
        for _ in range(new_tokens):
            inputs = target(input_ids=inputs, cache=cache, use_cache=True).logits[:, -1].argmax(-1, keepdim=True)
            steps.append(inputs)
    return torch.cat([ids, *steps], 1).tolist()


def warm_up() -> str:
    """`make setup`: train and cache the tiny target the tests and the tiny preset use."""
    tiny_target()
    return "peagle: tiny pattern-grammar target cached"
