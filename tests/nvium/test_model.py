"""The model: strict generalisation, the mixture's likelihood, and bad shapes."""

import math

import pytest
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.nvium.baselines import matched_baseline
from proceedings.nvium.mixture import expected_depth, log_mixture_weights, mixture_log_likelihood, mixture_log_probs
from proceedings.nvium.model import NviumConfig, NviumForCausalLM
from tests.nvium.conftest import small_model


def test_zero_intermediate_mass_gives_exactly_the_plain_transformer():
    model = small_model(seed=1)
    with torch.no_grad():
        for gate in model.gates:  # "all intermediate routing mass at zero"
            gate.weight.zero_()
            gate.bias.fill_(-30.0)
    plain = matched_baseline(model)
    idx = torch.randint(0, 256, (3, 40))
    out = model(idx)
    ours = mixture_log_probs(out.exit_logits, out.log_weights)
    theirs = plain(idx).exit_logits[0].log_softmax(-1)
    assert (ours - theirs).abs().max().item() < 1e-5
    assert torch.equal(out.exit_logits[-1], plain(idx).exit_logits[0])


def test_shallow_reference_holds_the_first_layers_of_the_same_initial_model(routed_model):
    shallow = matched_baseline(routed_model, n_layer=2)
    assert shallow.config.n_layer == 2 and shallow.config.exits == (2,)
    assert torch.equal(shallow.layers[1].mlp.down.weight, routed_model.layers[1].mlp.down.weight)
    assert torch.equal(shallow.exit_norms[0].weight, routed_model.exit_norms[-1].weight)


def test_mixture_likelihood_equals_a_brute_force_sum_over_exits(routed_model):
    idx = torch.randint(0, 256, (2, 17))
    targets = torch.randint(0, 256, (2, 17))
    out = routed_model(idx)
    probs = [logits.double().softmax(-1).gather(-1, targets[..., None])[..., 0] for logits in out.exit_logits]
    weights = out.log_weights.double().exp()
    brute = sum(weights[..., e] * probs[e] for e in range(len(probs))).log()
    assert torch.allclose(mixture_log_likelihood(out.exit_logits, out.log_weights, targets).double(), brute, atol=1e-5)


def test_halting_weights_form_a_distribution_with_the_stick_breaking_shape():
    z = torch.tensor([[0.0, 1.0, -2.0]])
    g = torch.sigmoid(z)[0]
    expected = [g[0], (1 - g[0]) * g[1], (1 - g[0]) * (1 - g[1]) * g[2], (1 - g[0]) * (1 - g[1]) * (1 - g[2])]
    pi = log_mixture_weights(z).exp()[0]
    assert torch.allclose(pi, torch.stack(expected))
    assert math.isclose(pi.sum().item(), 1.0, rel_tol=1e-6)
    depth = expected_depth(log_mixture_weights(z), [0.25, 0.5, 0.75, 1.0])
    assert math.isclose(depth.item(), float(sum(p * f for p, f in zip(expected, [0.25, 0.5, 0.75, 1.0]))), rel_tol=1e-6)


def test_depth_penalty_is_added_to_the_loss(routed_model):
    idx, targets = torch.randint(0, 256, (2, 9)), torch.randint(0, 256, (2, 9))
    plain, penalised = routed_model(idx, targets).loss, routed_model(idx, targets, depth_penalty=0.5).loss
    assert torch.allclose(penalised.total, plain.nll + 0.5 * plain.depth)
    assert 0.25 < plain.depth.item() < 1.0


def test_checkpoint_round_trip_keeps_outputs(tmp_path, routed_model):
    routed_model.save_pretrained(tmp_path)
    loaded = NviumForCausalLM.from_pretrained(tmp_path)
    idx = torch.randint(0, 256, (1, 12))
    assert torch.equal(loaded(idx).log_weights, routed_model(idx).log_weights)
    assert loaded.config == routed_model.config


@pytest.mark.parametrize("exits, message", [
    ((2, 1, 4), "strictly increasing"),
    ((1, 2, 2, 4), "strictly increasing"),
    ((1, 2, 3), "must end at the last layer"),
    ((0, 2, 4), "count layers from 1"),
    ((), "empty"),
])
def test_bad_exits_are_refused_in_one_line(exits, message):
    with pytest.raises(ProceedingsError, match=message) as err:
        NviumConfig(n_layer=4, exits=exits)
    assert "\n" not in str(err.value)


def test_loading_a_folder_that_is_not_a_checkpoint_says_what_to_do(tmp_path):
    with pytest.raises(ProceedingsError, match="not an N-vium checkpoint"):
        NviumForCausalLM.from_pretrained(tmp_path)
