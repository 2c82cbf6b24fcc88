"""Batched deferral is exact: every sequence of a batch gets what DeferredSampler gives it alone;
and the static, preallocated KV cache decodes exactly like one grown by concatenation."""

import pytest
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.nvium.batched_sampler import BatchedDeferredSampler
from proceedings.nvium.model import DynamicKVCache
from proceedings.nvium.sampler import DeferredSampler
from tests.nvium.conftest import small_model

PROMPTS = [[72, 101, 108, 108, 111], [1, 2, 3, 4, 5], [9, 9, 9, 9, 9]]


@pytest.mark.parametrize("max_pending", [16, 3, 1])
def test_each_sequence_of_a_batch_gets_the_single_sequence_samplers_tokens_and_caches(routed_model, max_pending):
    """...and after the final flush the batch's caches hold what the sequence's own deferred sampler holds
    (which equals the full-depth caches: test_sampler.py), so every sequence owes nothing."""
    sampler = BatchedDeferredSampler(routed_model, max_pending)
    batch = sampler.generate(PROMPTS, 60, seeds=[4, 5, 6])
    for b, (prompt, seed, tokens, exits) in enumerate(zip(PROMPTS, (4, 5, 6), batch.tokens, batch.exits)):
        single = DeferredSampler(routed_model, max_pending)
        alone = single.generate(prompt, 60, seed=seed)
        assert tokens == alone.tokens and exits == alone.exits
        for ours, theirs in zip(sampler.caches, single.caches):
            n = theirs.length
            assert int(ours.lengths[b]) == n == len(prompt) + 59
            assert torch.allclose(ours.k[b, :, :n], theirs.k[0, :, :n], atol=1e-5)
            assert torch.allclose(ours.v[b, :, :n], theirs.v[0, :, :n], atol=1e-5)
    assert {e for exits in batch.exits for e in exits} == set(range(routed_model.config.n_exits))
    assert max_pending == 1 or max(sampler.chunk_sizes) > 1  # sequences really owed chunks


def test_static_cache_decoding_equals_dynamic_cache_decoding_token_for_token(routed_model):
    static = DeferredSampler(routed_model, max_pending=3).generate(PROMPTS[0], 80, seed=9)
    dynamic = DeferredSampler(routed_model, max_pending=3, cache_type=DynamicKVCache).generate(PROMPTS[0], 80, seed=9)
    assert static.tokens == dynamic.tokens and static.exits == dynamic.exits


def test_batched_decoding_refuses_ragged_prompts_and_missing_seeds(routed_model):
    with pytest.raises(ProceedingsError, match="prompts of one length"):
        BatchedDeferredSampler(routed_model).generate([[1, 2], [3]], 5)
    with pytest.raises(ProceedingsError, match="one seed per prompt"):
        BatchedDeferredSampler(routed_model).generate(PROMPTS, 5, seeds=[0])
