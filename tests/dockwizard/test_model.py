"""The encoder-router-decoder on the committed fixture: it learns, it saves and loads, the function-only
arm never reads docking text, and the router's switches do what the ablations say."""

import dataclasses

import pytest
import torch

from proceedings.dockwizard.data import load_samples, split_by_cluster
from proceedings.dockwizard.features import Featurizer, sentence_slot
from proceedings.dockwizard.model import FUNCTION_ONLY, DockWizard, ModelConfig, parameter_count
from proceedings.dockwizard.training import TrainConfig, sample_designs, train
from proceedings.dockwizard.structures import AMINO_ACIDS


@pytest.fixture(scope="module")
def samples():
    return load_samples()


@pytest.fixture(scope="module")
def trained(samples):
    return train(samples, ModelConfig(d=32, layers=1, heads=2), TrainConfig(steps=20, batch=8, lr=3e-3))  # loss 3.4 -> 2.0


def test_the_fixture_is_small_attributed_and_its_natives_state_their_interactions(samples):
    from proceedings.dockwizard.data import FIXTURE

    assert 3 <= len(samples) <= 60
    natives = [s for s in samples if not s.distilled]
    assert natives and all(s.interactions and s.target == s.native for s in natives)
    assert "wwPDB" in (FIXTURE / "ATTRIBUTION.md").read_text()


def test_training_lowers_the_loss_and_designs_are_canonical_pockets_of_the_right_length(samples, trained):
    first, last = sum(trained.losses[:5]) / 5, sum(trained.losses[-5:]) / 5
    assert last < first
    designs = sample_designs(trained, samples[:3], n=2, temperature=0.8, top_p=0.9, seed=0)
    for condition, seqs in zip(samples[:3], designs):
        assert all(len(s) == len(condition.pocket) and set(s) <= set(AMINO_ACIDS) for s in seqs)


def test_a_saved_model_loads_to_the_same_designs(samples, trained, tmp_path):
    trained.model.save(tmp_path)
    assert (tmp_path / "model.safetensors").is_file()
    loaded = dataclasses.replace(trained, model=DockWizard.from_pretrained(tmp_path))
    assert sample_designs(loaded, samples[:2], 2, 0.8, 0.9, seed=3) == sample_designs(trained, samples[:2], 2, 0.8, 0.9, seed=3)


def test_function_only_samples_ignore_docking_text_same_seed_same_output(samples):
    model = DockWizard(ModelConfig(d=32, layers=1, heads=2, conditions=FUNCTION_ONLY)).eval()
    trained = type("T", (), {"model": model, "featurizer": Featurizer("masked")})()
    a = sample_designs(trained, samples[:2], 2, 0.8, 0.9, seed=5)
    b = sample_designs(trained, samples[:2], 2, 0.8, 0.9, seed=5, docking_texts=["Nothing at all.", "Other text."])
    assert a == b
    dw = DockWizard(ModelConfig(d=32, layers=1, heads=2)).eval()
    assert parameter_count(dw) == parameter_count(model)  # matched on parameter count


def test_docking_sentences_point_at_the_pocket_slot_they_name(samples):
    s = samples[0]
    sentence = f"The residue at position {s.pocket[2]} forms a hydrogen bond with the ligand's hydroxyl."
    assert sentence_slot(sentence, s.pocket) == 3
    assert sentence_slot("The ligand sits in a deep pocket.", s.pocket) == 0


def test_the_router_prior_sends_function_text_to_the_global_memory_and_no_router_is_uniform(samples):
    batch = Featurizer("masked").batch(samples[:2])
    for enabled in (True, False):
        model = DockWizard(ModelConfig(d=32, layers=1, heads=2, router=enabled)).eval()
        tokens, modality, pad, _ = model.encoder(batch)
        g = model.router.weights(tokens, modality)
        if enabled:
            assert g[:, modality == 0].argmax(-1).eq(0).float().mean() > 0.5  # function text -> global
            assert g[:, modality == 1].argmax(-1).eq(2).float().mean() > 0.5  # docking text -> local
        else:
            assert torch.allclose(g, torch.full_like(g, 1 / 3))
