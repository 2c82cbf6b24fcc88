"""A drafter saved as safetensors loads back to the same drafts, is refused on another target, and exports
to vLLM's EAGLE-3 layout."""

import json

import pytest
import torch
from safetensors.torch import load_file

from proceedings.core.errors import ProceedingsError
from proceedings.core.speculative import speculative_decode
from proceedings.peagle.checkpoints import export_vllm, load_drafter, save_drafter
from proceedings.peagle.data import TinyTargetConfig, tiny_target
from proceedings.peagle.drafter import init_drafter
from proceedings.peagle.proposer import DrafterProposer

LAYERS = (1, 2, 3)
D2T = torch.tensor([5, 3, 9, 4, 7, 6, 8, 10, 11, 12])


@pytest.mark.parametrize("method", ["peagle", "eagle3"])
def test_a_saved_drafter_loads_back_to_the_same_drafts_and_only_on_its_target(tmp_path, method):
    target = tiny_target()
    drafter = init_drafter(target, method, 2, 4, D2T, LAYERS, seed=3)
    path = save_drafter(drafter, tmp_path / "drafter.safetensors")
    loaded = load_drafter(path, target)
    assert loaded.cfg == drafter.cfg
    prompt = [5, 6, 7, 5, 6, 7, 5]
    traces = [speculative_decode(target, DrafterProposer(d, target), prompt, 12, 3) for d in (drafter, loaded)]
    assert traces[0].tokens == traces[1].tokens and traces[0].extras["accepted"] == traces[1].extras["accepted"]
    with pytest.raises(ProceedingsError, match="trained for another target: target hash"):
        load_drafter(path, tiny_target(TinyTargetConfig(train_steps=0)))
    (tmp_path / "broken.safetensors").write_bytes(path.read_bytes()[:100])
    with pytest.raises(ProceedingsError, match="is not a drafter file"):
        load_drafter(tmp_path / "broken.safetensors", target)
    with pytest.raises(ProceedingsError, match="no drafter file"):
        load_drafter(tmp_path / "missing.safetensors", target)


def test_the_vllm_export_has_eagle3_names_offsets_and_the_target_mask(tmp_path):
    target = tiny_target()
    drafter = init_drafter(target, "peagle", 1, 4, D2T, LAYERS, seed=3)
    directory = export_vllm(drafter, tmp_path)[0].parent
    weights, config = load_file(directory / "model.safetensors"), json.loads((directory / "config.json").read_text())
    assert config["architectures"] == ["LlamaForCausalLMEagle3"] and config["draft_vocab_size"] == len(D2T)
    assert config["eagle_aux_hidden_state_layer_ids"] == list(LAYERS) and config["parallel_draft_positions"] == 4
    assert torch.equal(weights["d2t"] + torch.arange(len(D2T)), D2T)  # target id = draft id + offset
    assert weights["t2d"].sum() == len(D2T) and weights["t2d"][D2T].all()
    assert torch.equal(weights["midlayer.input_layernorm.weight"], drafter.layers[0].embed_norm.weight.detach())
    assert weights["midlayer.self_attn.q_proj.weight"].shape == (128, 256)  # reads concat(embedding, hidden)
    assert {"fc.weight", "norm.weight", "lm_head.weight", "mask_hidden", "mask_embedding"} <= set(weights)


def test_feature_shards_load_back_resume_and_refuse_another_target_or_a_gap(tmp_path):
    from proceedings.peagle.target import extract_feature_shards, extract_features, load_feature_shards

    target = tiny_target()
    pairs = [([5, 6, 7, 5, 6, 7, 5, 6][:n], 3) for n in (5, 6, 7, 8, 8)]
    paths = extract_feature_shards(target, pairs, LAYERS, tmp_path, shard_size=2)
    assert [p.name for p in paths] == ["shard-00000.safetensors", "shard-00001.safetensors", "shard-00002.safetensors"]
    loaded, layers = load_feature_shards(tmp_path, target)
    assert layers == LAYERS and [s.prompt_len for s in loaded] == [3] * 5
    for mine, direct in zip(loaded, extract_features(target, pairs, LAYERS)):
        assert torch.equal(mine.features, direct.features) and torch.equal(mine.argmax, direct.argmax)
    paths[1].unlink()
    with pytest.raises(ProceedingsError, match="misses 1 of 3 shards"):
        load_feature_shards(tmp_path, target)
    stamp = paths[0].stat().st_mtime_ns
    extract_feature_shards(target, pairs, LAYERS, tmp_path, shard_size=2)  # resumes: only the missing shard
    assert paths[1].exists() and paths[0].stat().st_mtime_ns == stamp
    other = tiny_target(TinyTargetConfig(train_steps=0))
    with pytest.raises(ProceedingsError, match="come from target"):
        load_feature_shards(tmp_path, other)
    with pytest.raises(ProceedingsError, match="features of another target"):
        extract_feature_shards(other, pairs, LAYERS, tmp_path, shard_size=2)
    paths[2].write_bytes(b"not safetensors")
    with pytest.raises(ProceedingsError, match="is damaged"):
        load_feature_shards(tmp_path, target)
