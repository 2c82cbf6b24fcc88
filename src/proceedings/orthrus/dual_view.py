"""The dual view (Orthrus, spec §2.1-2.2): a frozen decoder LLM and a trainable diffusion view that reads
the frozen model's own KV cache.

Every decoder layer keeps its frozen attention projections q, k, v, o (the AR view) and gains a trainable
copy q', k', v', o' (plus q'/k' norms where the base has them, as Qwen3); one learned mask embedding
stands for the undecided slots of a block. MLPs, norms, embeddings, rotary embedding and LM head are the
base's own, shared and frozen. The diffusion forward over a block takes its queries, keys and values from
the primed projections and attends to the AR view's cached keys/values plus the block's own keys/values,
bidirectionally inside the block; it writes nothing to the cache, so its extra memory is the block's own
K/V: B x layers x 2 x kv_heads x head_dim numbers, whatever the context length (the paper's O(1) cache).
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from proceedings.core.errors import ProceedingsError

FAMILIES = ("llama", "qwen2", "qwen3")  # Hugging Face model_type values with q/k/v/o attention per layer
MIN_BLOCK, MAX_BLOCK = 2, 64


def check_family(base) -> None:
    """Refuse a base whose architecture is not one of FAMILIES (or lacks per-layer q/k/v/o attention)."""
    model_type = getattr(base.config, "model_type", None)
    layers = getattr(getattr(base, "model", None), "layers", None)
    has_qkvo = layers is not None and all(
        all(hasattr(getattr(layer, "self_attn", None), name) for name in ("q_proj", "k_proj", "v_proj", "o_proj"))
        for layer in layers)
    if model_type not in FAMILIES or not has_qkvo:
        raise ProceedingsError(f"unsupported base architecture '{model_type}': Orthrus needs a decoder with q/k/v/o "
                               f"attention per layer; supported families: {', '.join(FAMILIES)}")


def check_block_size(block_size: int) -> int:
    if not MIN_BLOCK <= block_size <= MAX_BLOCK:
        raise ProceedingsError(f"block size B must lie in [{MIN_BLOCK}, {MAX_BLOCK}], got {block_size}")
    return block_size


def base_config_hash(base) -> str:
    """A short hash of the base's config and a probe of its embeddings: a view trained on one base is
    refused on another."""
    config = {k: v for k, v in base.config.to_dict().items()
              if not k.startswith("_") and k not in ("dtype", "torch_dtype", "transformers_version")}
    embed = base.get_input_embeddings().weight
    probe = embed[:: max(1, embed.shape[0] // 64)].detach().float().sum(1)
    text = json.dumps(config, sort_keys=True, default=str) + ",".join(f"{x:.4f}" for x in probe.tolist())
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class DiffusionAttention(nn.Module):
    """q', k', v', o' (+ q'/k' norms) of one layer, initialised as copies of the base's (spec §2.1)."""

    def __init__(self, attention: nn.Module):
        super().__init__()
        for name in ("q_proj", "k_proj", "v_proj", "o_proj", "q_norm", "k_norm"):
            if hasattr(attention, name):
                setattr(self, name, copy.deepcopy(getattr(attention, name)))
        self.has_norms = hasattr(attention, "q_norm")
        self.head_dim = attention.head_dim
        self.scaling = attention.scaling
        for p in self.parameters():
            p.requires_grad_(True)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, past_keys: torch.Tensor,
                past_values: torch.Tensor, mask, frozen: nn.Module | None = None,
                frozen_rows: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """x (1, Q, H) normed block states; past_* (1, kv_heads, T, head_dim) the AR view's cached K/V.
        Returns the attention output (1, Q, H) and the block's own keys/values (1, kv_heads, Q, head_dim).
        The queries at `frozen_rows` are computed with `frozen`, the base's own attention (`first_slot_ar`)."""
        from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

        q, k, v = self._qkv(self, x)
        if frozen_rows is not None:
            q, k, v = (primed.index_copy(1, frozen_rows, own)
                       for primed, own in zip((q, k, v), self._qkv(frozen, x[:, frozen_rows])))
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        q, k = apply_rotary_pos_emb(q, k, cos, sin)
        keys, values = torch.cat([past_keys, k], 2), torch.cat([past_values, v], 2)
        if mask is None or isinstance(mask, torch.Tensor):
            out = F.scaled_dot_product_attention(q, keys, values, attn_mask=mask, scale=self.scaling, enable_gqa=True)
        else:  # a FlexAttention BlockMask (the paper path): the block-sparse kernel, one dtype for q, k, v (under
            # autocast the rotary embedding leaves q, k in fp32 while v is bf16; SDPA casts them itself)
            q, keys = q.to(values.dtype), keys.to(values.dtype)
            out = flex_attention_kernel(q.device)(q, keys, values, block_mask=mask, scale=self.scaling, enable_gqa=True)
        out = out.transpose(1, 2).reshape(*x.shape[:-1], -1)
        projected = self.o_proj(out)
        if frozen_rows is not None:
            projected = projected.index_copy(1, frozen_rows, frozen.o_proj(out[:, frozen_rows]))
        return projected, k, v

    def _qkv(self, attention: nn.Module, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """q, k, v (1, Q, heads, head_dim) of x through `attention`'s projections (and q/k norms where it has them)."""
        shape = (*x.shape[:-1], -1, self.head_dim)
        q, k = attention.q_proj(x).view(shape), attention.k_proj(x).view(shape)
        if self.has_norms:
            q, k = attention.q_norm(q), attention.k_norm(k)
        return q, k, attention.v_proj(x).view(shape)


@functools.cache
def flex_attention_kernel(device: torch.device):
    """FlexAttention compiled into a fused kernel on GPUs (as the official code does); on the CPU its eager
    implementation (forward only: this torch has no FlexAttention backward on the CPU)."""
    from torch.nn.attention.flex_attention import flex_attention

    return torch.compile(flex_attention) if device.type == "cuda" else flex_attention


@dataclass
class DiffusionOutput:
    logits: torch.Tensor  # (Q, V)
    extra_cache_bytes: int  # the block's own keys and values over all layers: the only memory it adds


class DiffusionView(nn.Module):
    """The trainable half of the dual view: per-layer primed attention and the mask embedding."""

    def __init__(self, base, block_size: int, first_slot_causal: bool = False, first_slot_ar: bool = False):
        super().__init__()
        check_family(base)
        self.block_size = check_block_size(block_size)
        # a departure from the paper's bidirectional block (round 17): slot 0 (the draft right after x_n) attends
        # to the cache and x_n only, not to the masks after it, in training and at inference
        self.first_slot_causal = first_slot_causal or first_slot_ar
        # a further departure (round 18): slot 0 is also computed with the frozen AR projections, so it is the AR
        # step itself, before and after training; the later slots read its keys/values (the AR view's own)
        self.first_slot_ar = first_slot_ar
        self.base_hash = base_config_hash(base)
        self.attentions = nn.ModuleList(DiffusionAttention(layer.self_attn) for layer in base.model.layers)
        embed = base.get_input_embeddings().weight.detach()
        self.mask_embedding = nn.Parameter(embed.float().mean(0).to(embed.dtype).clone())  # [inferred] init

    def new_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def block_embeddings(self, base, first_tokens: torch.Tensor, block_size: int) -> torch.Tensor:
        """(M * B, H): per block the embedding of its committed token x_n, then B - 1 mask embeddings."""
        firsts = base.get_input_embeddings()(first_tokens)  # (M, H)
        masks = self.mask_embedding.expand(len(first_tokens), block_size - 1, -1)
        return torch.cat([firsts[:, None], masks], 1).reshape(-1, firsts.shape[-1])

    def forward(self, base, embeddings: torch.Tensor, positions: torch.Tensor, past: list[tuple[torch.Tensor, torch.Tensor]],
                mask=None, block_size: int | None = None) -> DiffusionOutput:
        """One diffusion forward: embeddings (Q, H) at `positions` (Q,), blocks of `block_size` (default the
        view's), reading `past` (per layer the AR view's (keys, values)); `mask` says which keys each query sees:
        a dense (Q, T + Q) bool tensor (SDPA), a FlexAttention BlockMask of the same rule, or None (all: one block
        over the whole cache). Frozen base parts are the base's own modules; nothing is written anywhere."""
        model = base.model
        hidden = embeddings[None]
        cos, sin = model.rotary_emb(hidden, positions[None])
        first_slots = (torch.arange(0, len(embeddings), block_size or self.block_size, device=embeddings.device)
                       if self.first_slot_ar else None)
        extra = 0
        for layer, attention, (keys, values) in zip(model.layers, self.attentions, past):
            out, k, v = attention(layer.input_layernorm(hidden), cos, sin, keys, values, mask, layer.self_attn,
                                  first_slots)
            extra += k.numel() * k.element_size() + v.numel() * v.element_size()
            hidden = hidden + out
            hidden = hidden + layer.mlp(layer.post_attention_layernorm(hidden))
        return DiffusionOutput(base.lm_head(model.norm(hidden))[0], extra)


def freeze(base) -> None:
    """The base is frozen: no gradient ever reaches it."""
    for p in base.parameters():
        p.requires_grad_(False)


def cache_layers(cache) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Per layer (keys, values) of a Hugging Face DynamicCache, as views (read, never written)."""
    return [(layer.keys, layer.values) for layer in cache.layers]


def parameter_counts(base, view: DiffusionView) -> dict:
    """New weights, base weights, their share of the combined model, and trainable base weights."""
    base_total = sum(p.numel() for p in base.parameters())
    new = view.new_parameters()
    return {"new_parameters": new, "base_parameters": base_total, "new_share": new / (new + base_total),
            "trainable_base_parameters": sum(p.numel() for p in base.parameters() if p.requires_grad)}
