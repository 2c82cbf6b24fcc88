"""The dual view and one Orthrus round: copied projections reproduce the AR view, the diffusion pass never
touches the AR cache, and consensus decoding emits exactly the greedy AR tokens."""

import pytest
import torch
from transformers import DynamicCache

from proceedings.core.errors import ProceedingsError
from proceedings.core.speculative import autoregressive_decode, speculative_decode
from proceedings.orthrus.consensus import DiffusionDrafter, cache_checksum, diffusion_block_logits
from proceedings.orthrus.dual_view import DiffusionView


def _prefilled(base, prompt):
    cache = DynamicCache()
    with torch.inference_mode():
        base(input_ids=torch.tensor([prompt[:-1]]), cache=cache, use_cache=True)
    return cache


def test_copied_projections_with_one_slot_give_the_ar_logits(pattern_base, pattern_prompt_list):
    view = DiffusionView(pattern_base, 4)
    for prompt in pattern_prompt_list:
        cache = _prefilled(pattern_base, prompt)
        with torch.inference_mode():
            diffusion = diffusion_block_logits(pattern_base, view, cache, prompt[-1], 1).logits
            ar = pattern_base(input_ids=torch.tensor([prompt[-1:]]), cache=cache, use_cache=True).logits[0]
        assert (diffusion - ar).abs().max() < 1e-5


def test_the_diffusion_pass_leaves_the_cache_length_and_checksum_unchanged(pattern_base, pattern_prompt_list):
    view = DiffusionView(pattern_base, 8)
    with torch.no_grad():
        for p in view.parameters():
            p.add_(0.01 * torch.randn_like(p))  # a view that differs from the AR projections
    cache = _prefilled(pattern_base, pattern_prompt_list[0])
    before = cache_checksum(cache)
    with torch.inference_mode():
        out = diffusion_block_logits(pattern_base, view, cache, pattern_prompt_list[0][-1], 8)
    assert cache_checksum(cache) == before
    config = pattern_base.config
    head_dim = config.hidden_size // config.num_attention_heads
    assert out.extra_cache_bytes == 8 * config.num_hidden_layers * 2 * config.num_key_value_heads * head_dim * 4


def _draft_positions(accepted: list[int]) -> list[int]:
    """Indices (in the new tokens, after the prefill's first token) that were accepted drafts, not bonuses."""
    positions, at = [], 1
    for a in accepted:
        positions += list(range(at, at + a))
        at += a + 1
    return positions


@pytest.mark.parametrize("block", [2, 4, 8])
def test_consensus_equals_greedy_decoding_with_eos_inside_an_accepted_block_and_a_cut_mid_block(
        pattern_base, pattern_prompt_list, block):
    view = DiffusionView(pattern_base, block)
    drafter = DiffusionDrafter(pattern_base, view, check_cache=True)
    for prompt in pattern_prompt_list:
        new = 3 * block + 1  # the last round is cut mid-block
        free = speculative_decode(pattern_base, drafter, prompt, new, block - 1)
        assert free.tokens == autoregressive_decode(pattern_base, prompt, new).tokens
        firsts = [j for j in _draft_positions(free.extras["accepted"]) if free.tokens[j] not in free.tokens[:j]]
        if not firsts:
            continue
        eos = free.tokens[firsts[0]]  # a token first emitted as an accepted draft ends the text there
        stopped = speculative_decode(pattern_base, drafter, prompt, new, block - 1, eos_token_id=eos)
        reference = autoregressive_decode(pattern_base, prompt, new, eos_token_id=eos)
        assert stopped.tokens == reference.tokens == free.tokens[:firsts[0] + 1]


def test_the_view_refuses_bad_block_sizes_and_unsupported_architectures(pattern_base):
    for block in (1, 65):
        with pytest.raises(ProceedingsError, match="block size"):
            DiffusionView(pattern_base, block)
    from transformers import GPT2Config, GPT2LMHeadModel

    gpt2 = GPT2LMHeadModel(GPT2Config(n_layer=1, n_embd=32, n_head=2, vocab_size=64))
    with pytest.raises(ProceedingsError, match="llama, qwen2, qwen3"):
        DiffusionView(gpt2, 4)


def test_qwen3_views_copy_the_q_and_k_norms_and_match_the_ar_view_at_one_slot():
    from transformers import Qwen3Config, Qwen3ForCausalLM

    torch.manual_seed(0)
    base = Qwen3ForCausalLM(Qwen3Config(vocab_size=64, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                        num_attention_heads=4, num_key_value_heads=2, head_dim=16)).eval()
    view = DiffusionView(base, 4)
    assert hasattr(view.attentions[0], "q_norm") and hasattr(view.attentions[0], "k_norm")
    prompt = list(range(5, 17))
    cache = _prefilled(base, prompt)
    with torch.inference_mode():
        diffusion = diffusion_block_logits(base, view, cache, prompt[-1], 1).logits
        ar = base(input_ids=torch.tensor([prompt[-1:]]), cache=cache, use_cache=True).logits[0]
    assert (diffusion - ar).abs().max() < 1e-5
