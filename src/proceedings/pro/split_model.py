"""A decoder LM run as a frozen trunk plus trainable top layers, with a frozen teacher copy of the top.

Watermark distillation needs, per batch, the original model's logits (teacher), the student's
logits, and for PRO's regularizer the student's logits again at perturbed weights.  When only the
top L decoder layers are trained (laptop scale, spec §5) the bottom of the network is identical in
teacher and student, so its hidden states are computed once and shared: three forwards of the top
instead of three of the whole model.  With `train_layers=None` the trunk is the embedding alone.

Works for Hugging Face decoders that expose `get_decoder().layers` and `.norm` and do not rescale
`inputs_embeds` in `forward` (Llama, Mistral, Qwen2, SmolLM, Phi-3 families).
"""

from __future__ import annotations

import contextlib
import copy

import torch
from torch import nn

from proceedings.core.errors import ProceedingsError


class SplitLM:
    """`trunk(ids) -> h` (no grad), `head(h) -> student logits`, `head(h, teacher=True) -> teacher logits`."""

    def __init__(self, model, train_layers: int | None):
        decoder = model.get_decoder()
        if not hasattr(decoder, "layers") or not hasattr(decoder, "norm"):
            raise ProceedingsError(f"{type(model).__name__} has no decoder .layers/.norm; PRO training supports "
                                   "Llama-style Hugging Face decoders")
        layers = decoder.layers
        if train_layers is not None and not 1 <= train_layers <= len(layers):
            raise ProceedingsError(f"train_layers={train_layers}, the model has {len(layers)} decoder layers")
        split = 0 if train_layers is None else len(layers) - train_layers
        self.model, self.decoder = model, decoder
        self.bottom, self.top = nn.ModuleList(layers[:split]), nn.ModuleList(layers[split:])
        self.teacher_top = copy.deepcopy(self.top).requires_grad_(False)
        self.teacher_norm = copy.deepcopy(decoder.norm).requires_grad_(False)
        model.requires_grad_(False)
        self.top.requires_grad_(True)
        decoder.norm.requires_grad_(True)

    def trainable(self) -> list[nn.Parameter]:
        """Student parameters that training changes, in the same order as `original()`."""
        return list(self.top.parameters()) + list(self.decoder.norm.parameters())

    def original(self) -> list[torch.Tensor]:
        """The teacher's (original) values of `trainable()`: the anchor of the merge perturbation."""
        return list(self.teacher_top.parameters()) + list(self.teacher_norm.parameters())

    @contextlib.contextmanager
    def _using(self, layers: nn.ModuleList, norm: nn.Module):
        saved = self.decoder.layers, self.decoder.norm
        self.decoder.layers, self.decoder.norm = layers, norm
        try:
            yield
        finally:
            self.decoder.layers, self.decoder.norm = saved

    @torch.no_grad()
    def trunk(self, input_ids: torch.Tensor) -> torch.Tensor:
        """(B, T) ids -> (B, T, d) hidden state entering the first trained layer."""
        with self._using(self.bottom, nn.Identity()):
            return self.decoder(input_ids=input_ids, use_cache=False).last_hidden_state

    def head(self, hidden: torch.Tensor, teacher: bool = False) -> torch.Tensor:
        """(B, T, d) trunk output -> (B, T, V) logits of the student or of the frozen teacher."""
        layers, norm = (self.teacher_top, self.teacher_norm) if teacher else (self.top, self.decoder.norm)
        with self._using(layers, norm):
            out = self.decoder(inputs_embeds=hidden, use_cache=False).last_hidden_state
        return self.model.get_output_embeddings()(out).float()  # losses in fp32 even for a bf16 model
