"""The user's model: parameter audit on SmolLM2, saved views, bad input, and lossless sampling."""

import copy

import pytest
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.orthrus.model import OrthrusModel


def test_info_on_smollm2_reports_26_542_656_new_weights_and_no_trainable_base_weight(smollm2):
    base, tokenizer = smollm2
    facts = OrthrusModel.from_base(copy.deepcopy(base), block_size=8, tokenizer=tokenizer).info()
    assert facts["new_parameters"] == 30 * 884_736 + 576 == 26_542_656
    assert facts["trainable_base_parameters"] == 0
    assert round(facts["new_share"], 3) == 0.165


def test_a_saved_view_loads_back_and_is_refused_on_another_base(pattern_base, tmp_path):
    model = OrthrusModel.from_base(pattern_base, block_size=4)
    with torch.no_grad():
        model.view.mask_embedding.add_(1.0)
    model.save_view(tmp_path / "view")
    again = OrthrusModel.from_base(pattern_base, block_size=8).load_view(tmp_path / "view")
    assert again.block_size == 4 and torch.equal(again.view.mask_embedding, model.view.mask_embedding)
    other = copy.deepcopy(pattern_base)
    with torch.no_grad():
        other.get_input_embeddings().weight.add_(0.5)
    with pytest.raises(ProceedingsError, match=f"trained on base {model.view.base_hash}.*loaded base is"):
        OrthrusModel.from_base(other, block_size=4).load_view(tmp_path / "view")


@pytest.mark.parametrize("kwargs, message", [
    ({"temperature": -0.5}, "temperature"),
    ({"temperature": 1.0, "top_p": 0.0}, "top_p"),
    ({"temperature": 1.0, "top_p": 1.5}, "top_p"),
    ({"max_new_tokens": 600}, "context"),
    ({"mode": "diffusion"}, "unknown mode"),
])
def test_bad_generation_requests_are_refused_in_one_line(pattern_base, pattern_prompt_list, kwargs, message):
    model = OrthrusModel.from_base(pattern_base, block_size=4)
    with pytest.raises(ProceedingsError, match=message):
        model.generate(pattern_prompt_list[0], **kwargs)


def test_greedy_orthrus_equals_greedy_ar_through_the_api(pattern_base, pattern_prompt_list):
    model = OrthrusModel.from_base(pattern_base, block_size=8)
    out = model.generate(pattern_prompt_list[1], 20, check_cache=True)
    assert out.tokens == model.generate(pattern_prompt_list[1], 20, mode="ar").tokens
    assert out.stats["tau"] >= 1 and out.stats["extra_cache_bytes"] > 0


def _perturbed(model: OrthrusModel) -> OrthrusModel:
    """A view that differs from the copied projections, as a trained one does."""
    torch.manual_seed(1)
    with torch.no_grad():
        for p in model.view.parameters():
            p.add_(0.01 * torch.randn_like(p))
    return model


def test_merge_export_loads_back_bit_identically_and_as_a_plain_hf_model(pattern_base, pattern_prompt_list, tmp_path):
    from transformers import AutoModelForCausalLM

    model = _perturbed(OrthrusModel.from_base(copy.deepcopy(pattern_base), block_size=4))
    hash_before = model.view.base_hash
    folder = model.merge_export(tmp_path / "export")
    assert {"config.json", "model.safetensors", "view.safetensors"} <= {p.name for p in folder.iterdir()}
    assert model.view.base_hash == hash_before and not any(p.name.startswith(".") for p in tmp_path.iterdir())
    again = OrthrusModel.from_pretrained(folder)
    assert again.block_size == 4 and again.view.base_hash == hash_before and again.tokenizer is None
    for original, loaded in ((model.base, again.base), (model.view, again.view)):
        state = loaded.state_dict()
        assert all(torch.equal(v, state[k]) for k, v in original.state_dict().items())
    prompt = pattern_prompt_list[0]
    assert again.generate(prompt, 12).tokens == model.generate(prompt, 12).tokens
    plain = AutoModelForCausalLM.from_pretrained(folder)  # the AR view, without any Orthrus code
    assert all(torch.equal(v, plain.state_dict()[k]) for k, v in model.base.state_dict().items())
    with pytest.raises(ProceedingsError, match="already exists and is not an empty folder"):
        model.merge_export(folder)


def test_merge_export_keeps_the_tokenizer_where_the_base_has_one(tiny_lm, tmp_path):
    base, tokenizer = tiny_lm
    model = OrthrusModel.from_base(copy.deepcopy(base), block_size=4, tokenizer=tokenizer)
    again = OrthrusModel.from_pretrained(model.merge_export(tmp_path / "export"))
    assert again.prompt_ids("Hello there") == model.prompt_ids("Hello there")
    with pytest.raises(ProceedingsError, match="is not an Orthrus export"):
        OrthrusModel.from_pretrained(tmp_path)
