"""The cost model and the memory measurement (issue 20 "Laptop analogue", spec §2.4).

A round costs one diffusion pass and one AR verify pass over B tokens, T_diff(B) + T_AR(B), and emits tau
tokens; plain decoding emits one per T(1). So the speed-up over AR is tau * T(1) / (T_diff(B) + T_AR(B)),
break-even at tau = (T_diff(B) + T_AR(B)) / T(1), and at most B / that when every draft is accepted.
On a GPU at batch 1 both passes cost about one token step, which is where tau becomes the speed-up.
Extra memory: the bytes the diffusion pass allocates for the block's own keys/values (nothing persists),
measured at several context lengths beside the AR cache itself.
"""

from __future__ import annotations

import statistics
import time
from typing import Sequence

import torch

from proceedings.core.bench import measure_forward_costs
from proceedings.orthrus.consensus import diffusion_block_logits
from proceedings.orthrus.dual_view import DiffusionView, cache_layers


def _prefilled_cache(base, context: int, seed: int = 0):
    from transformers import DynamicCache

    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, base.config.vocab_size, (1, context), generator=generator)
    cache = DynamicCache()
    with torch.inference_mode():
        base(input_ids=ids.to(next(base.parameters()).device), cache=cache, use_cache=True)
    return cache


def diffusion_seconds(base, view: DiffusionView, blocks: Sequence[int], context: int = 64, repeats: int = 10) -> dict[int, float]:
    """Median wall seconds of one diffusion pass per block size, on `context` cached tokens; sizes take turns."""
    cache = _prefilled_cache(base, context)
    times: dict[int, list[float]] = {b: [] for b in blocks}
    with torch.inference_mode():
        for r in range(repeats + 1):  # round 0 warms every shape up and is not kept
            for b in blocks:
                start = time.perf_counter()
                diffusion_block_logits(base, view, cache, 3, b)
                if r:
                    times[b].append(time.perf_counter() - start)
    return {b: statistics.median(v) for b, v in times.items()}


def cost_table(base, view: DiffusionView, blocks: Sequence[int] = (2, 4, 8, 16), context: int = 64,
               repeats: int = 10) -> dict:
    """T(k)/T(1) for k = 1..16, T_diff(B), and per B the break-even tau and the ceiling (all times in one process)."""
    forward = measure_forward_costs(base, ks=tuple(range(1, 17)), context=context, repeats=repeats)
    diffusion = diffusion_seconds(base, view, blocks, context, repeats)
    t1 = forward.seconds[1]
    per_block = {}
    for b in blocks:
        round_s = diffusion[b] + forward.seconds[b]
        per_block[b] = {"t_diff_ms": 1e3 * diffusion[b], "t_ar_ms": 1e3 * forward.seconds[b],
                        "break_even_tau": round_s / t1, "ceiling": b * t1 / round_s}
    return {"context": context, "t1_ms": 1e3 * t1, "ratios": forward.ratios(), "blocks": per_block}


def extra_cache_bytes(base, view: DiffusionView, block: int, contexts: Sequence[int]) -> dict[int, dict]:
    """Per context length: bytes the diffusion pass adds (the block's own K/V) and the AR cache's own bytes."""
    out = {}
    for context in contexts:
        cache = _prefilled_cache(base, context)
        with torch.inference_mode():
            extra = diffusion_block_logits(base, view, cache, 3, block).extra_cache_bytes
        ar = sum(k.numel() * k.element_size() + v.numel() * v.element_size() for k, v in cache_layers(cache))
        out[context] = {"extra_bytes": extra, "ar_cache_bytes": ar}
    return out


def expected_extra_bytes(base, block: int) -> int:
    """B x layers x 2 x kv_heads x head_dim x bytes per number (368,640 for SmolLM2-135M at B=8 in fp32)."""
    config = base.config
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    size = next(base.parameters()).element_size()
    return block * config.num_hidden_layers * 2 * config.num_key_value_heads * head_dim * size
