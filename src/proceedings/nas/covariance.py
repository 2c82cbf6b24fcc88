"""C_0 = E[k k^T] of the keys at each edit layer over a generic corpus (MEMIT's mom2 statistics).

MEMIT's solve uses lambda * C_0 to protect what the layer already stores; AlphaEdit projects onto
C_0's null space. Collection is one no-grad pass over fixed-length token chunks with hooks on every
edit layer at once; it checkpoints its running sums atomically every few batches and resumes from
the chunk offset, and the finished statistics are cached per model hash / layer / corpus / size.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from proceedings.core.runtime import load_checkpoint, save_checkpoint
from proceedings.nas.activations import stopping_after
from proceedings.nas.model_layout import ModuleLayout, module

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

log = logging.getLogger(__name__)


def token_chunks(tok: "PreTrainedTokenizerBase", documents: Sequence[str], n_tokens: int, seq_len: int) -> list[list[int]]:
    """The first n_tokens of the corpus (documents joined by EOS) as chunks of seq_len tokens."""
    stream: list[int] = []
    for doc in documents:
        stream += tok(doc, add_special_tokens=False).input_ids + [tok.eos_token_id]
        if len(stream) >= n_tokens:
            break
    stream = stream[:n_tokens]
    return [stream[i:i + seq_len] for i in range(0, len(stream), seq_len) if len(stream[i:i + seq_len]) > 1]


def key_second_moments(model: "PreTrainedModel", layout: ModuleLayout, layers: Sequence[int],
                       chunks: list[list[int]], state_file: Path, batch_size: int = 8,
                       save_every: int = 10, stop_after: int | None = None) -> dict[int, "torch.Tensor"] | None:
    """{layer: E[k k^T]} (float64, d_ff x d_ff), resuming from `state_file` when it exists.

    `stop_after` ends the pass after that many batches (the state stays on disk) and returns None;
    it exists to test resumption.
    """
    import torch
    from proceedings.core.progress import progress_bar

    state = load_checkpoint(state_file) or {"next": 0, "count": 0, "sums": {}}
    sums: dict[int, torch.Tensor] = state["sums"]
    device = next(model.parameters()).device

    def on_input(_mod, args, layer):
        keys = args[0][current_mask].double()  # (tokens, d_ff)
        sums[layer] = sums.get(layer, 0) + keys.T @ keys

    handles = [module(model, layout.mlp_out_tmp.format(layer)).register_forward_hook(
        lambda mod, args, out, layer=layer: on_input(mod, args, layer)) for layer in layers]
    batches = range(state["next"], len(chunks), batch_size)
    try:
        for done, start in enumerate(progress_bar(batches, desc="C_0 statistics", unit="batch", leave=False), 1):
            group = chunks[start:start + batch_size]
            width = max(map(len, group))
            ids = torch.tensor([c + [0] * (width - len(c)) for c in group], device=device)
            current_mask = torch.tensor([[1] * len(c) + [0] * (width - len(c)) for c in group], device=device).bool()
            with torch.no_grad(), stopping_after(model, layout, max(layers)):
                model.base_model(input_ids=ids, attention_mask=current_mask.long())
            state["count"] += int(current_mask.sum())
            state["next"] = start + batch_size
            if done % save_every == 0 or state["next"] >= len(chunks):
                save_checkpoint(state_file, state)
            if stop_after is not None and done >= stop_after:
                save_checkpoint(state_file, state)
                return None
    finally:
        for handle in handles:
            handle.remove()
    return {layer: sums[layer] / state["count"] for layer in layers}
