"""Exact deferred sampling: same tokens as the full-depth reference, complete caches (the law of the
tokens and exits: test_token_law.py)."""

import pytest
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.nvium.cost_model import simulate_chunks
from proceedings.nvium.sampler import DeferredSampler, FullDepthSampler, RandomDraws, sample_token
from tests.nvium.conftest import small_model

PROMPT = [72, 101, 108, 108, 111]
TOKENS = 150


@pytest.fixture(scope="module")
def decoded():
    """decoded(sampler_class, seed, **options) -> (sampler, output) of one run of TOKENS tokens on the routed
    model, each run made once per module (the samplers keep their caches; nothing here changes the model)."""
    model, runs = small_model(), {}

    def run(sampler_class, seed, **options):
        key = (sampler_class, seed, *sorted(options.items()))
        if key not in runs:
            sampler = sampler_class(model, **options)
            runs[key] = sampler, sampler.generate(PROMPT, TOKENS, seed=seed)
        return runs[key]
    run.model = model
    return run


@pytest.mark.parametrize("seed, max_pending", [(0, 16), (0, 3), (0, 1), (1, 16)])
def test_deferred_sampler_emits_the_reference_tokens_with_shared_draws(decoded, seed, max_pending):
    _, deferred = decoded(DeferredSampler, seed, max_pending=max_pending)
    _, reference = decoded(FullDepthSampler, seed)
    assert deferred.tokens == reference.tokens
    assert deferred.exits == reference.exits
    assert len(set(deferred.exits)) == decoded.model.config.n_exits  # every exit was exercised


def test_caches_after_flush_equal_full_depth_caches(decoded):
    (deferred, _), (reference, _) = decoded(DeferredSampler, 0, max_pending=16), decoded(FullDepthSampler, 0)
    assert sum(n * c for n, c in deferred.chunk_sizes.items()) == sum(reference.chunk_sizes.values())
    for ours, theirs in zip(deferred.caches, reference.caches):
        assert ours.length == theirs.length == len(PROMPT) + TOKENS - 1
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


def test_cost_model_replays_the_engines_chunk_schedule(decoded):
    _, out = decoded(DeferredSampler, 0, max_pending=3)
    config = decoded.model.config
    assert simulate_chunks(out.exits, config.exits, config.n_layer, 3) == out.chunk_sizes


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


def test_temperature_sharpens_each_exits_distribution(decoded):
    cold = DeferredSampler(decoded.model).generate(PROMPT, TOKENS, temperature=0.05, seed=0)
    _, hot = decoded(DeferredSampler, 0, max_pending=16)  # temperature 1
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
