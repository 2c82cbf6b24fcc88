"""Exact deferred sampling: same tokens as the full-depth reference, complete caches (the law of the
tokens and exits: test_token_law.py)."""

import pytest
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.nvium.cost_model import simulate_chunks
from proceedings.nvium.sampler import DeferredSampler, FullDepthSampler, RandomDraws, sample_token
from tests.nvium.conftest import small_model

PROMPT = [72, 101, 108, 108, 111]


@pytest.mark.parametrize("seed, max_pending", [(0, 16), (1, 16), (2, 3), (3, 1)])
def test_deferred_sampler_emits_the_reference_tokens_with_shared_draws(routed_model, seed, max_pending):
    deferred = DeferredSampler(routed_model, max_pending=max_pending).generate(PROMPT, 150, seed=seed)
    reference = FullDepthSampler(routed_model).generate(PROMPT, 150, seed=seed)
    assert deferred.tokens == reference.tokens
    assert deferred.exits == reference.exits
    assert len(set(deferred.exits)) == routed_model.config.n_exits  # every exit was exercised


def test_caches_after_flush_equal_full_depth_caches(routed_model):
    deferred, reference = DeferredSampler(routed_model), FullDepthSampler(routed_model)
    deferred.generate(PROMPT, 200, seed=5)
    reference.generate(PROMPT, 200, seed=5)
    assert sum(n * c for n, c in deferred.chunk_sizes.items()) == sum(reference.chunk_sizes.values())
    for ours, theirs in zip(deferred.caches, reference.caches):
        assert ours.length == theirs.length == len(PROMPT) + 199
        assert torch.allclose(ours.k[:, :, :ours.length], theirs.k[:, :, :theirs.length], atol=1e-5)
        assert torch.allclose(ours.v[:, :, :ours.length], theirs.v[:, :, :theirs.length], atol=1e-5)
    assert max(deferred.chunk_sizes) > 1  # the deferral really batched positions


def test_single_exit_model_is_plain_cached_decoding():
    model = small_model(exits=(4,))
    out = DeferredSampler(model).generate(PROMPT, 50, seed=0)
    with torch.no_grad():
        logits = model(torch.tensor([PROMPT + out.tokens[:-1]])).exit_logits[0][0, len(PROMPT) - 1:]
    assert set(out.exits) == {0} and max(out.chunk_sizes) == 1
    draws = RandomDraws(1, seed=0)  # one uniform per token: the token's
    assert out.tokens == [sample_token(row, 1.0, draws.next()[1]) for row in logits]


def test_greedy_is_the_argmax_of_the_mixture(routed_model):
    from proceedings.nvium.mixture import mixture_log_probs

    tokens = FullDepthSampler(routed_model).greedy(PROMPT, 20)
    with torch.no_grad():
        out = routed_model(torch.tensor([PROMPT + tokens[:-1]]))
    argmax = mixture_log_probs(out.exit_logits, out.log_weights)[0, len(PROMPT) - 1:].argmax(-1)
    assert argmax.tolist() == tokens


def test_cost_model_replays_the_engines_chunk_schedule(routed_model):
    out = DeferredSampler(routed_model, max_pending=4).generate(PROMPT, 150, seed=2)
    config = routed_model.config
    assert simulate_chunks(out.exits, config.exits, config.n_layer, 4) == out.chunk_sizes


@pytest.mark.parametrize("temperature", [0.0, -1.0])
def test_deferred_sampling_refuses_non_positive_temperature(routed_model, temperature):
    with pytest.raises(ProceedingsError, match="greedy decoding of a mixture needs every exit"):
        DeferredSampler(routed_model).generate(PROMPT, 5, temperature=temperature)


def test_bad_sampler_settings_are_refused(routed_model):
    with pytest.raises(ProceedingsError, match="max_pending"):
        DeferredSampler(routed_model, max_pending=0)
    with pytest.raises(ProceedingsError, match="exceeds max_seq_len"):
        DeferredSampler(routed_model).generate(PROMPT, 5000)
    with pytest.raises(ProceedingsError, match="prompt is empty"):
        DeferredSampler(routed_model).generate([], 5)


def test_temperature_sharpens_each_exits_distribution(routed_model):
    cold = DeferredSampler(routed_model).generate(PROMPT, 200, temperature=0.05, seed=0)
    hot = DeferredSampler(routed_model).generate(PROMPT, 200, temperature=1.0, seed=0)
    assert len(set(cold.tokens)) < len(set(hot.tokens))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_deferred_sampler_on_a_gpu_emits_the_reference_tokens(routed_model):
    model = routed_model.to("cuda")
    deferred = DeferredSampler(model, max_pending=3).generate(PROMPT, 200, seed=0)
    reference = FullDepthSampler(model).generate(PROMPT, 200, seed=0)
    assert deferred.tokens == reference.tokens and deferred.exits == reference.exits


@pytest.mark.slow  # compiling the layers costs ~20 CPU-s; the README's compile benchmark checks the same per prompt
def test_compiled_layers_emit_the_eager_tokens_and_exits(routed_model):
    eager = DeferredSampler(routed_model, max_pending=3).generate(PROMPT, 120, seed=4)
    compiled = DeferredSampler(routed_model, max_pending=3, compile=True).generate(PROMPT, 120, seed=4)
    assert compiled.tokens == eager.tokens and compiled.exits == eager.exits
    assert compiled.chunk_sizes == eager.chunk_sizes and max(eager.chunk_sizes) > 1  # chunks of several sizes


def test_compiled_decoding_is_measured_at_batch_1_only(routed_model):
    from proceedings.nvium.speed import benchmark_models

    with pytest.raises(ProceedingsError, match="batch 1 only"):
        benchmark_models({"m": routed_model}, [PROMPT, PROMPT], 4, batch=2, compile=True)
