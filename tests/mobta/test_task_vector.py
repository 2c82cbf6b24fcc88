"""Dense task-vector arithmetic is exact, matches PEFT's own merge, and refuses mismatched vectors."""

import copy
import sys

import pytest
import torch

from proceedings.mobta.backbone import tiny_backbone
from proceedings.mobta.finetuning import Recipe, finetune
from proceedings.mobta.task_vector import TaskVector, evaluate_expression, is_tied, model_hash
from proceedings.mobta.token_ids import TokenIds, hf_ids
from proceedings.mobta.tokenization import TrajTokenizer

RECIPE = Recipe(steps=3, batch=4, lr=2e-2, new_row_lr=2e-2, lora_r=8, warmup_steps=1)


def _sequences(ids: TokenIds, seed: int) -> list[list[int]]:
    g = torch.Generator().manual_seed(seed)
    return [ids.ids(["<mob>", f"<t{int(torch.randint(48, (1,), generator=g)):02d}>",
                     f"<c{int(torch.randint(256, (1,), generator=g)):03d}>", "<eos>"]) for _ in range(16)]


@pytest.fixture(scope="module")
def lora(tiny_lm):
    """A tied tiny Llama with the trajectory tokens added, and two LoRA fine-tunes of it."""
    model, hf_tokenizer = tiny_lm
    ids = hf_ids(copy.deepcopy(hf_tokenizer), TrajTokenizer(16))
    base = copy.deepcopy(model)
    torch.manual_seed(0)
    base.resize_token_embeddings(ids.vocab_size, mean_resizing=False)
    meta = {"base_hash": model_hash(base), "tokenizer_hash": "t", "grid": 16, "slot_minutes": 30}
    tuned = {name: finetune(base, _sequences(ids, seed), RECIPE, ids.to_id["<eos>"], ids.new_ids)[0]
             for name, seed in (("a", 1), ("b", 2))}
    vectors = {name: TaskVector.from_lora(m, {**meta, "name": name}) for name, m in tuned.items()}
    return base, ids, tuned, vectors


def test_from_lora_then_apply_equals_peft_merge_and_unload(lora):
    base, _, tuned, vectors = lora
    ours = dict(vectors["a"].apply_to(base).named_parameters())
    peft_merged = dict(copy.deepcopy(tuned["a"]).merge_and_unload().named_parameters())
    assert set(ours) == set(peft_merged)
    assert max(float((ours[k] - peft_merged[k]).abs().max()) for k in ours) <= 1e-5
    embed = "model.embed_tokens.weight"
    assert float((ours[embed] - dict(base.named_parameters())[embed]).abs().max()) > 1e-3  # the added rows moved


def test_one_minus_one_is_the_elementwise_difference_of_dense_deltas_including_added_rows(lora, tmp_path):
    _, ids, _, vectors = lora
    paths = {name: v.save(tmp_path / f"{name}.safetensors") for name, v in vectors.items()}
    loaded = {name: TaskVector.load(path) for name, path in paths.items()}
    diff = evaluate_expression("a - b", loaded, {})
    a, b = vectors["a"].deltas, vectors["b"].deltas
    assert set(diff.deltas) == set(a) and "model.embed_tokens.weight" in diff.deltas
    assert diff.row_offset["model.embed_tokens.weight"] == min(ids.new_ids)
    assert max(float((diff.deltas[k] - (a[k] - b[k])).abs().max()) for k in a) <= 1e-7


def test_a_negative_combination_follows_the_dense_formula_not_the_factor_wise_one(lora):
    base, _, tuned, vectors = lora
    merged = dict((vectors["a"] - vectors["b"]).apply_to(base).named_parameters())
    module = "model.layers.0.self_attn.q_proj"
    layer = {n: dict(m.base_model.model.get_submodule(module).named_parameters()) for n, m in tuned.items()}
    A = {n: p["lora_A.default.weight"] for n, p in layer.items()}
    B = {n: p["lora_B.default.weight"] for n, p in layer.items()}
    scale = RECIPE.lora_alpha / RECIPE.lora_r
    w0 = dict(base.named_parameters())[f"{module}.weight"]
    dense = w0 + scale * (B["a"] @ A["a"]) - scale * (B["b"] @ A["b"])
    factor_wise = w0 + scale * (B["a"] - B["b"]) @ (A["a"] - A["b"])
    assert float((merged[f"{module}.weight"] - dense).abs().max()) <= 1e-6
    assert float((merged[f"{module}.weight"] - factor_wise).abs().max()) > 100 * 1e-6


def test_a_merged_tied_base_stays_tied(lora):
    base, _, _, vectors = lora
    assert is_tied(base) and is_tied((vectors["a"] + 1.5 * vectors["b"]).apply_to(base))


def test_a_full_fine_tunes_vector_applied_to_its_base_is_the_fine_tuned_model():
    tokenizer = TrajTokenizer(16)
    base = tiny_backbone(tokenizer, seed=0, hidden=64, pretrain=Recipe(steps=0, lora_r=None))  # random, not pre-trained
    tuned, _ = finetune(base.model, _sequences(base.ids, 3), Recipe(steps=2, batch=4, lr=1e-2, lora_r=None), base.pad_id)
    vector = TaskVector.between(base.model, tuned, base.meta("x"))
    merged = dict(vector.apply_to(base.model).named_parameters())
    assert max(float((merged[k] - p).abs().max()) for k, p in tuned.named_parameters()) <= 1e-6


def test_combining_grid_16_and_grid_32_vectors_exits_2_naming_both(tmp_path, monkeypatch, capsys):
    from proceedings.cli import main

    for name, grid in (("coarse", 16), ("fine", 32)):
        TaskVector({"w": torch.ones(2)}, {"base_hash": "b", "tokenizer_hash": "t", "grid": grid, "slot_minutes": 30}
                   ).save(tmp_path / f"{name}.safetensors")
    monkeypatch.setattr(sys, "argv", ["proceedings", "mobta", "arith", "coarse - fine",
                                      "--vec", f"coarse={tmp_path / 'coarse.safetensors'}",
                                      "--vec", f"fine={tmp_path / 'fine.safetensors'}", "--out-dir", str(tmp_path)])
    with pytest.raises(SystemExit) as exited:  # in-process: the `proceedings` entry point, without a second interpreter
        main()
    assert exited.value.code == 2
    message = "".join(capsys.readouterr())
    assert "grid 16" in message and "grid 32" in message and "coarse" in message and "fine" in message
