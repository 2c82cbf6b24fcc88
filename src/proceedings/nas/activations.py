"""Reading and writing activations at the subject's last token with forward hooks.

keys   k_l = input of the MLP output projection of layer l   (d_ff)
values      = its output                                      (d)
h_l        = output of decoder block l (the residual stream)  (d)
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Iterator

from proceedings.nas.model_layout import ModuleLayout, module
from proceedings.nas.prompts import TokenBatch

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel


def _hidden(output):
    return output[0] if isinstance(output, tuple) else output


def _replace_hidden(output, hidden):
    return (hidden,) + tuple(output[1:]) if isinstance(output, tuple) else hidden


@contextlib.contextmanager
def recording(model: "PreTrainedModel", layout: ModuleLayout, layers, batch: TokenBatch) -> Iterator[dict]:
    """Record, at each row's subject position, the keys, the MLP output and the block output of `layers`.

    Yields a dict filled during the forward: {("key"|"value"|"h", layer): (rows, dim)}.
    """
    import torch

    found: dict = {}
    rows = torch.arange(batch.input_ids.shape[0], device=batch.input_ids.device)
    handles = []
    for layer in layers:
        def on_mlp(_mod, args, output, layer=layer):
            found["key", layer] = args[0][rows, batch.subject_pos].detach()
            found["value", layer] = output[rows, batch.subject_pos].detach()

        def on_block(_mod, _args, output, layer=layer):
            found["h", layer] = _hidden(output)[rows, batch.subject_pos].detach()

        handles.append(module(model, layout.mlp_out_tmp.format(layer)).register_forward_hook(on_mlp))
        handles.append(module(model, layout.layer_tmp.format(layer)).register_forward_hook(on_block))
    try:
        yield found
    finally:
        for handle in handles:
            handle.remove()


@contextlib.contextmanager
def adding_at_subject(model: "PreTrainedModel", layout: ModuleLayout, layer: int, batch: TokenBatch,
                      delta: "torch.Tensor") -> Iterator[None]:
    """Add delta[owner(row)] to block `layer`'s output at each row's subject position."""
    import torch

    rows = torch.arange(batch.input_ids.shape[0], device=batch.input_ids.device)

    def on_block(_mod, _args, output):
        hidden = _hidden(output)
        shift = torch.zeros_like(hidden)
        shift[rows, batch.subject_pos] = delta[batch.owner].to(hidden.dtype)  # (rows, d) into (rows, seq, d)
        return _replace_hidden(output, hidden + shift)

    handle = module(model, layout.layer_tmp.format(layer)).register_forward_hook(on_block)
    try:
        yield
    finally:
        handle.remove()


def forward_hidden(model: "PreTrainedModel", batch: TokenBatch) -> "torch.Tensor":
    """Final hidden states after the final norm (rows, seq, d); the LM head is applied by the caller
    only where it is needed (a 49k-token vocabulary at every position is the costliest part)."""
    return model.base_model(input_ids=batch.input_ids, attention_mask=batch.attention_mask).last_hidden_state


class _Stop(Exception):
    """Raised by a hook to end a forward pass once the layers of interest have run."""


@contextlib.contextmanager
def stopping_after(model: "PreTrainedModel", layout: ModuleLayout, layer: int) -> Iterator[None]:
    """End the forward pass after block `layer`: reading keys at the first quarter of the depth then
    costs a quarter of a forward (ROME's nethook does the same with `stop=True`)."""

    def on_block(_mod, _args, _output):
        raise _Stop

    handle = module(model, layout.layer_tmp.format(layer)).register_forward_hook(on_block)
    try:
        yield
    except _Stop:
        pass
    finally:
        handle.remove()


def subject_activations(model: "PreTrainedModel", layout: ModuleLayout, layers, batch: TokenBatch) -> dict:
    """One no-grad forward up to the deepest of `layers`; returns the recording dict of `recording`."""
    import torch

    with torch.no_grad(), recording(model, layout, layers, batch) as found, stopping_after(model, layout, max(layers)):
        forward_hidden(model, batch)
    return found


def mean_by_owner(rows_values: "torch.Tensor", owner: "torch.Tensor", n: int) -> "torch.Tensor":
    """Average the rows of each request: (rows, dim) -> (n, dim)."""
    import torch

    total = torch.zeros(n, rows_values.shape[1], dtype=rows_values.dtype, device=rows_values.device)
    total.index_add_(0, owner, rows_values)
    counts = torch.bincount(owner, minlength=n).clamp_min(1).to(rows_values.dtype)
    return total / counts[:, None]
