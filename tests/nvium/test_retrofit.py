"""Retrofit mode: zero-mass exits leave the pretrained model unchanged. The fast tests use a small random
Llama shaped like SmolLM2 (grouped-query attention, tied embeddings, its RoPE base and norm epsilon); the
same checks on the real SmolLM2-135M run with the slow tests (loading it costs ~8 CPU-s)."""

import pytest
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.nvium.mixture import mixture_log_probs
from proceedings.nvium.retrofit import SMOLLM2_EXITS, config_from_llama, retrofit_llama
from proceedings.nvium.sampler import DeferredSampler, FullDepthSampler

PROMPTS = ["The capital of France is", "def fibonacci(n):", "Once upon a time,"]


@pytest.fixture(scope="module")
def retrofitted(smollm2):
    model, tokenizer = smollm2
    return retrofit_llama(model, SMOLLM2_EXITS, tokenizer="smollm2-135m"), model, tokenizer


def _assert_same_logits_with_zero_mass_exits(ours, hf, ids):
    """The retrofit's last exit and its mixture give the original model's logits; the other exits start
    with zero mass."""
    with torch.no_grad():
        out, reference = ours(ids), hf(ids).logits
    assert (out.exit_logits[-1] - reference).abs().max().item() < 1e-4
    mixture = mixture_log_probs(out.exit_logits, out.log_weights)
    assert (mixture - reference.log_softmax(-1)).abs().max().item() < 1e-4
    assert out.log_weights[..., :-1].exp().max().item() < 1e-12  # zero-mass initialisation


@pytest.mark.slow  # ~11 CPU-s with the model's loading; test_a_retrofitted_llama_computes_its_logits... is the fast check
def test_retrofitted_smollm2_has_the_pretrained_logits(retrofitted):
    ours, hf, tokenizer = retrofitted
    ids = tokenizer(PROMPTS[0], return_tensors="pt").input_ids
    _assert_same_logits_with_zero_mass_exits(ours, hf, ids)


@pytest.mark.slow  # ~6 s; test_a_retrofitted_llama_computes_its_logits... is the fast check of the same equivalence
def test_retrofitted_smollm2_reproduces_the_greedy_output_for_three_prompts(retrofitted):
    ours, hf, tokenizer = retrofitted
    for prompt in PROMPTS:
        ids = tokenizer(prompt, return_tensors="pt").input_ids
        expected = hf.generate(ids, max_new_tokens=6, do_sample=False)[0, ids.shape[1]:].tolist()
        assert FullDepthSampler(ours).greedy(ids[0].tolist(), 6) == expected


@pytest.mark.slow  # ~3 CPU-s; test_a_retrofit_with_trained_exits_and_fitted_gates_still_samples_exactly is the fast check
def test_deferred_sampling_on_a_real_model_matches_the_full_depth_reference(retrofitted):
    ours, _, tokenizer = retrofitted
    with torch.no_grad():  # open the gates so that the shallow exits are really taken
        for gate in ours.gates:
            gate.bias.fill_(-0.5)
    try:
        ids = tokenizer(PROMPTS[2], return_tensors="pt").input_ids[0].tolist()
        deferred = DeferredSampler(ours).generate(ids, 12, seed=3)
        reference = FullDepthSampler(ours).generate(ids, 12, seed=3)
        assert deferred.tokens == reference.tokens and deferred.exits == reference.exits
        assert min(deferred.exits) < len(SMOLLM2_EXITS) - 1
    finally:
        with torch.no_grad():
            for gate in ours.gates:
                gate.bias.fill_(-30.0)


def tiny_llama(**overrides):
    """A random 4-layer Llama with SmolLM2's shape: grouped-query attention and tied embeddings."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(**{"vocab_size": 64, "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 4,
                            "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 256,
                            "tie_word_embeddings": True, **overrides})
    return LlamaForCausalLM(config).eval()


def test_a_retrofitted_llama_computes_its_logits_with_zero_mass_exits():
    hf = tiny_llama(rope_theta=100000.0, rms_norm_eps=1e-5)  # SmolLM2's RoPE base and epsilon, not the defaults
    ours = retrofit_llama(hf, (1, 2, 3, 4), tokenizer="tiny")
    ids = torch.randint(0, 64, (2, 40), generator=torch.Generator().manual_seed(0))
    _assert_same_logits_with_zero_mass_exits(ours, hf, ids)


def test_models_these_layers_cannot_compute_are_refused():
    config = tiny_llama().config
    with pytest.raises(ProceedingsError, match="must end at the last layer"):
        config_from_llama(config, (1, 2, 3), "tiny")
    config.attention_bias = True
    with pytest.raises(ProceedingsError, match="without attention/MLP biases"):
        config_from_llama(config, (1, 2, 3, 4), "tiny")


def test_training_the_exits_improves_them_and_changes_nothing_else(tmp_path):
    import numpy as np

    from proceedings.nvium.exit_heads import fit_exit_heads
    from proceedings.nvium.router_fit import exit_features, exit_hiddens

    model = retrofit_llama(tiny_llama(), (1, 2, 3, 4), tokenizer="tiny", adapter_rank=4)
    ids = np.tile(np.random.default_rng(0).integers(0, 64, 97), 12)  # a repeating text the exits can learn
    data = exit_hiddens(model, ids, 32, 1024, tmp_path / "hiddens.pt")
    before, weights = exit_features(model, data), {k: v.clone() for k, v in model.state_dict().items()}
    assert torch.allclose(before.log_likelihoods[:, 0], before.log_likelihoods[:, 0])  # adapters start at zero:
    with torch.no_grad():  # ... the exits are the logit lens, exactly
        lens = model.lm_head(model.exit_norms[-1](data.hiddens[:, 0])).log_softmax(-1)
    assert torch.allclose(before.log_likelihoods[:, 0], lens.gather(-1, data.targets[:, None])[:, 0], atol=1e-5)
    fit = fit_exit_heads(model, data, epochs=4, checkpoint=tmp_path / "heads.pt", lr=1e-2, batch_size=64, progress=False)
    after = exit_features(model, data)
    assert fit.epochs == 4 and fit.losses[-1] < fit.losses[0]
    assert (after.log_likelihoods[:, :3].mean(0) > before.log_likelihoods[:, :3].mean(0) + 0.1).all()
    changed = {k for k, v in model.state_dict().items() if not torch.equal(v, weights[k])}
    assert changed and all(k.startswith(("exit_adapters.", "exit_norms.0", "exit_norms.1", "exit_norms.2")) for k in changed)
    assert torch.equal(after.log_likelihoods[:, 3], before.log_likelihoods[:, 3])  # the last exit is SmolLM2's own
    assert all(not p.requires_grad for p in model.parameters() if p.requires_grad is False)
    resumed = retrofit_llama(tiny_llama(), (1, 2, 3, 4), tokenizer="tiny", adapter_rank=4)
    fit_exit_heads(resumed, data, epochs=4, checkpoint=tmp_path / "heads.pt", progress=False)  # done: loads it
    assert all(torch.equal(v, model.state_dict()[k]) for k, v in resumed.state_dict().items())


def test_a_retrofit_with_trained_exits_and_fitted_gates_still_samples_exactly(tmp_path):
    import numpy as np

    from proceedings.nvium.exit_heads import fit_exit_heads
    from proceedings.nvium.retrofit_experiment import cached_features
    from proceedings.nvium.router_fit import exit_features, exit_hiddens, fit_gates, install_gates, mixture_nll

    model = retrofit_llama(tiny_llama(), (1, 2, 3, 4), tokenizer="tiny", adapter_rank=4)
    ids = np.random.default_rng(0).integers(0, 64, 1200)
    data = exit_hiddens(model, ids, 32, 1024, tmp_path / "hiddens.pt")
    assert exit_hiddens(model, ids, 32, 1024, tmp_path / "hiddens.pt").hiddens.equal(data.hiddens)  # cached
    fit_exit_heads(model, data, epochs=2, checkpoint=tmp_path / "heads.pt", lr=1e-2, batch_size=128, progress=False)
    assert any(a.up.weight.abs().max() > 0 for a in model.exit_adapters)  # the adapters really are in play
    features = cached_features(model, data, tmp_path / "features.pt")
    again = cached_features(model, data, tmp_path / "features.pt")  # read back, not recomputed
    assert again.gate_inputs.equal(features.gate_inputs) and again.log_likelihoods.equal(features.log_likelihoods)
    weight, bias = fit_gates(features, model.config.depth_fractions(), depth_penalty=0.5, steps=60)
    install_gates(model, weight, bias)
    with torch.no_grad():  # the features are what the model computes: same mixture weights from its own forward
        window = torch.from_numpy(ids[:33].astype("int64"))[None]
        one = exit_features(model, exit_hiddens(model, ids[:33], 32, 32, tmp_path / "one.pt"))
        _, log_weights = mixture_nll(weight, bias, one)
        out = model(window[:, :-1])
        assert torch.allclose(out.log_weights[0], log_weights, atol=1e-5)
        exit_ll = torch.stack([x[0].log_softmax(-1).gather(-1, window[0, 1:, None])[:, 0] for x in out.exit_logits], -1)
        assert torch.allclose(exit_ll, one.log_likelihoods, atol=1e-4)
    prompt = ids[:6].tolist()
    deferred = DeferredSampler(model, max_pending=3).generate(prompt, 120, seed=1)
    reference = FullDepthSampler(model).generate(prompt, 120, seed=1)
    assert deferred.tokens == reference.tokens and deferred.exits == reference.exits
    assert min(deferred.exits) == 0  # the fitted router really sends tokens out early


def test_the_least_squares_start_makes_an_exit_predict_what_the_last_layer_predicts():
    from proceedings.nvium.exit_heads import least_squares_start
    from proceedings.nvium.router_fit import ExitHiddens, exit_features

    model = retrofit_llama(tiny_llama(), (1, 2, 3, 4), tokenizer="tiny", adapter_rank=32)  # full rank: d = 32
    g = torch.Generator().manual_seed(0)
    last = torch.randn(512, 32, generator=g) * 3
    rotations = [torch.linalg.qr(torch.randn(32, 32, generator=g)).Q for _ in range(3)]
    # each earlier stream is the last one rotated (same size), so a linear map recovers it exactly
    data = ExitHiddens(torch.stack([last @ q.T for q in rotations] + [last], 1), torch.randint(0, 64, (512,), generator=g))
    lens = exit_features(model, data).log_likelihoods
    least_squares_start(model, data)
    started = exit_features(model, data).log_likelihoods
    assert (lens[:, :3] - lens[:, 3:]).abs().mean() > 0.1  # the logit lens reads a rotated stream wrongly
    assert torch.allclose(started[:, :3], started[:, 3:].expand(-1, 3), atol=2e-3)  # now: the last exit's law


def test_the_gate_fit_opens_gates_on_streams_with_a_huge_constant_coordinate():
    """Round 3's fit (Adam, lr 0.02, raw inputs) drove every gate shut here (objective 1.2985 vs 1.3 for never
    exiting) as it did on SmolLM2; standardised inputs and L-BFGS reach 1.262."""
    from proceedings.nvium.mixture import expected_depth
    from proceedings.nvium.router_fit import ExitFeatures, fit_gates, mixture_nll

    g = torch.Generator().manual_seed(0)
    easy = torch.rand(2000, generator=g) < 0.5  # the shallow exits are as good as the last one on these tokens
    inputs = torch.randn(2000, 3, 64, generator=g)
    inputs[:, :, 0] += 40.0  # residual streams carry a few huge, nearly constant coordinates
    inputs[:, :, 1] += torch.where(easy, 1.0, -1.0)[:, None]  # a weak sign of an easy token
    log_likelihoods = torch.full((2000, 4), -1.0)
    log_likelihoods[:, :3] = torch.where(easy, -1.0, -6.0)[:, None]
    features, fractions = ExitFeatures(inputs, log_likelihoods), [0.25, 0.5, 0.75, 1.0]
    weight, bias = fit_gates(features, fractions, depth_penalty=0.3)
    nll, log_weights = mixture_nll(weight, bias, features)
    objective = nll + 0.3 * expected_depth(log_weights, fractions).mean()
    never_exiting = 1.0 + 0.3
    assert objective < never_exiting - 0.02
    assert log_weights.exp()[easy, 0].mean() > 0.3 > log_weights.exp()[~easy, 0].mean()
