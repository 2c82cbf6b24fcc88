"""Batched deferral is exact: every sequence of a batch gets what DeferredSampler gives it alone;
and the static, preallocated KV cache decodes exactly like one grown by concatenation."""

import pytest
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.nvium.batched_sampler import BatchedDeferredSampler
from proceedings.nvium.model import DynamicKVCache
from proceedings.nvium.sampler import DeferredSampler, FullDepthSampler
from tests.nvium.conftest import small_model

PROMPTS = [[72, 101, 108, 108, 111], [1, 2, 3, 4, 5], [9, 9, 9, 9, 9]]


@pytest.mark.parametrize("max_pending", [16, 3, 1])
def test_each_sequence_of_a_batch_gets_the_single_sequence_samplers_tokens(routed_model, max_pending):
    batch = BatchedDeferredSampler(routed_model, max_pending).generate(PROMPTS, 60, seeds=[4, 5, 6])
    for prompt, seed, tokens, exits in zip(PROMPTS, (4, 5, 6), batch.tokens, batch.exits):
        alone = DeferredSampler(routed_model, max_pending).generate(prompt, 60, seed=seed)
        assert tokens == alone.tokens and exits == alone.exits
    assert {e for exits in batch.exits for e in exits} == set(range(routed_model.config.n_exits))


def test_batched_caches_after_flush_equal_full_depth_caches(routed_model):
    sampler = BatchedDeferredSampler(routed_model, max_pending=4)
    sampler.generate(PROMPTS, 40, seeds=[0, 1, 2])
    assert max(sampler.chunk_sizes) > 1  # sequences really owed chunks
    for b, prompt in enumerate(PROMPTS):
        reference = FullDepthSampler(routed_model)
        reference.generate(prompt, 40, seed=b)
        for ours, theirs in zip(sampler.caches, reference.caches):
            n = theirs.length
            assert int(ours.lengths[b]) == n
            assert torch.allclose(ours.k[b, :, :n], theirs.k[0, :, :n], atol=1e-5)
            assert torch.allclose(ours.v[b, :, :n], theirs.v[0, :, :n], atol=1e-5)


def test_static_cache_decoding_equals_dynamic_cache_decoding_token_for_token(routed_model):
    static = DeferredSampler(routed_model, max_pending=3).generate(PROMPTS[0], 80, seed=9)
    dynamic = DeferredSampler(routed_model, max_pending=3, cache_type=DynamicKVCache).generate(PROMPTS[0], 80, seed=9)
    assert static.tokens == dynamic.tokens and static.exits == dynamic.exits


def test_batched_decoding_refuses_ragged_prompts_and_missing_seeds(routed_model):
    with pytest.raises(ProceedingsError, match="prompts of one length"):
        BatchedDeferredSampler(routed_model).generate([[1, 2], [3]], 5)
    with pytest.raises(ProceedingsError, match="one seed per prompt"):
        BatchedDeferredSampler(routed_model).generate(PROMPTS, 5, seeds=[0])
