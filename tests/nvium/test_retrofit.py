"""Retrofit mode on the real SmolLM2-135M: zero-mass exits leave the pretrained model unchanged."""

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


def test_retrofitted_smollm2_has_the_pretrained_logits(retrofitted):
    ours, hf, tokenizer = retrofitted
    ids = tokenizer(PROMPTS[0], return_tensors="pt").input_ids
    with torch.no_grad():
        out, reference = ours(ids), hf(ids).logits
    assert (out.exit_logits[-1] - reference).abs().max().item() < 1e-4
    mixture = mixture_log_probs(out.exit_logits, out.log_weights)
    assert (mixture - reference.log_softmax(-1)).abs().max().item() < 1e-4
    assert out.log_weights[..., :-1].exp().max().item() < 1e-12  # zero-mass initialisation


def test_retrofitted_smollm2_reproduces_the_greedy_output_for_three_prompts(retrofitted):
    ours, hf, tokenizer = retrofitted
    for prompt in PROMPTS:
        ids = tokenizer(prompt, return_tensors="pt").input_ids
        expected = hf.generate(ids, max_new_tokens=6, do_sample=False)[0, ids.shape[1]:].tolist()
        assert FullDepthSampler(ours).greedy(ids[0].tolist(), 6) == expected


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


def test_models_these_layers_cannot_compute_are_refused(smollm2):
    config = smollm2[0].config.__class__(**smollm2[0].config.to_dict())
    config.attention_bias = True
    with pytest.raises(ProceedingsError, match="without attention/MLP biases"):
        config_from_llama(config, SMOLLM2_EXITS, "smollm2-135m")
    with pytest.raises(ProceedingsError, match="must end at the last layer"):
        config_from_llama(smollm2[0].config, (8, 15, 23), "smollm2-135m")
