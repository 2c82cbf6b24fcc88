"""Retrofit mode (spec §2.4): exits attached to a pretrained Hugging Face Llama with zero routing mass.

The pretrained weights are loaded with `transformers` (SmolLM2-135M-Instruct by default, through
core.models) and placed unchanged in an `NviumForCausalLM`, whose layers compute exactly what Llama's
do. Every intermediate exit starts as a copy of the final norm (the "logit lens") and every gate at
w = 0, b = -30, so the mixture puts 1e-13 on the shallow exits: the retrofitted model *is* the
pretrained one (tested against the Hugging Face forward and its greedy output). With
`adapter_rank` > 0 every intermediate exit also gets a low-rank adapter (zero at first, so still the
logit lens) that exit_heads.py trains; the gates are then fitted where the trained exits agree with
the deep one (router_fit.py, or `TrainConfig(trainable="router")` through the whole model). This demonstrates strict generalisation and the deferred engine on a real model; it is
not the paper's claim, which is about models pretrained with exits.
"""

from __future__ import annotations

import torch

from proceedings.core.errors import ProceedingsError
from proceedings.nvium.model import NviumConfig, NviumForCausalLM

ZERO_MASS_BIAS = -30.0  # sigmoid(-30) = 9e-14: no measurable mass on the intermediate exits
SMOLLM2_EXITS = (8, 15, 23, 30)  # Quadrivium on SmolLM2's 30 layers (spec §2.4)


def config_from_llama(hf_config, exits: tuple[int, ...], tokenizer: str, adapter_rank: int = 0) -> NviumConfig:
    """The N-vium shape of a Llama config; refuses what these layers do not compute (biases, RoPE scaling)."""
    if getattr(hf_config, "model_type", None) != "llama":
        raise ProceedingsError(f"retrofit needs a Llama-family model, got model_type '{hf_config.model_type}'")
    if getattr(hf_config, "attention_bias", False) or getattr(hf_config, "mlp_bias", False):
        raise ProceedingsError("retrofit supports Llama models without attention/MLP biases")
    rope = getattr(hf_config, "rope_parameters", None) or getattr(hf_config, "rope_scaling", None) or {}
    if rope.get("rope_type", "default") != "default":
        raise ProceedingsError(f"retrofit supports plain RoPE only, this model uses '{rope['rope_type']}' scaling")
    theta = rope.get("rope_theta", getattr(hf_config, "rope_theta", 10000.0))
    return NviumConfig(
        vocab_size=hf_config.vocab_size, n_layer=hf_config.num_hidden_layers, d_model=hf_config.hidden_size,
        n_head=hf_config.num_attention_heads, n_kv_head=hf_config.num_key_value_heads,
        head_dim=getattr(hf_config, "head_dim", None), d_ff=hf_config.intermediate_size,
        max_seq_len=hf_config.max_position_embeddings, exits=tuple(exits), gate_bias_init=ZERO_MASS_BIAS,
        rope_theta=float(theta), norm_eps=hf_config.rms_norm_eps, tie_embeddings=hf_config.tie_word_embeddings,
        tokenizer=tokenizer, exit_adapter_rank=adapter_rank,
    )


@torch.no_grad()
def retrofit_llama(hf_model, exits: tuple[int, ...], tokenizer: str, adapter_rank: int = 0) -> NviumForCausalLM:
    """An N-vium model computing exactly `hf_model`, with zero-mass exits after the given layers."""
    config = config_from_llama(hf_model.config, exits, tokenizer, adapter_rank)
    model = NviumForCausalLM(config)
    llama = hf_model.model
    model.embed.weight.copy_(llama.embed_tokens.weight)
    for ours, theirs in zip(model.layers, llama.layers):
        attn, mlp = theirs.self_attn, theirs.mlp
        ours.attn_norm.weight.copy_(theirs.input_layernorm.weight)
        ours.attn.qkv.weight.copy_(torch.cat([attn.q_proj.weight, attn.k_proj.weight, attn.v_proj.weight]))
        ours.attn.out.weight.copy_(attn.o_proj.weight)
        ours.mlp_norm.weight.copy_(theirs.post_attention_layernorm.weight)
        ours.mlp.gate_up.weight.copy_(torch.cat([mlp.gate_proj.weight, mlp.up_proj.weight]))
        ours.mlp.down.weight.copy_(mlp.down_proj.weight)
    for norm in model.exit_norms:  # intermediate exits start as the logit lens
        norm.weight.copy_(llama.norm.weight)
    if not config.tie_embeddings:
        model.lm_head.weight.copy_(hf_model.lm_head.weight)
    param = next(hf_model.parameters())
    return model.to(device=param.device, dtype=param.dtype).eval()


def load_retrofit(spec: str = "smollm2-135m", exits: tuple[int, ...] = SMOLLM2_EXITS,
                  device: str = "cpu", adapter_rank: int = 0) -> NviumForCausalLM:
    """Load a pretrained Llama (alias, directory, .gguf or Hugging Face id) and retrofit exits onto it."""
    from proceedings.core.models import load_causal_lm

    hf_model, _ = load_causal_lm(spec, device=device, dtype="float32")
    return retrofit_llama(hf_model, exits, tokenizer=spec, adapter_rank=adapter_rank)
