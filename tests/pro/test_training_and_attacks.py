"""Training resumes exactly and stops on NaN; attacks write new models and never touch their input."""

import copy
import json
import subprocess
import sys
from dataclasses import replace

import pytest
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.pro import attacks, objectives
from proceedings.pro.attacks import attack_dir
from proceedings.pro.experiment import CONFIGS
from proceedings.pro.release import save_model_dir, weights_digest
from proceedings.pro.training import TrainingDiverged, WatermarkTrainer


def _trainer(tiny_world, **changes):
    cfg = CONFIGS["tiny"]
    train = replace(cfg.train, steps=6, checkpoint_every=2, policy_warmup_steps=2, **changes)
    return WatermarkTrainer(copy.deepcopy(tiny_world[0]), tiny_world[1], train, policy=cfg.policy, kgw=cfg.kgw)


class _Killed(Exception):
    pass


@pytest.mark.parametrize("method", ["pro", "kgw-distill"])
def test_resume_reproduces_the_uninterrupted_run(tiny_world, tiny_blocks, tmp_path, method):
    whole = _trainer(tiny_world, method=method)
    whole.fit(tiny_blocks, tmp_path / "whole")

    def kill_after_step_3(step, record):
        if step == 3:
            raise _Killed

    with pytest.raises(_Killed):
        _trainer(tiny_world, method=method).fit(tiny_blocks, tmp_path / "cut", on_step=kill_after_step_3)
    resumed = _trainer(tiny_world, method=method)
    resumed.fit(tiny_blocks, tmp_path / "cut", resume=True)

    for a, b in zip(whole.split.trainable(), resumed.split.trainable()):
        assert torch.allclose(a, b, atol=1e-6, rtol=0)
    lines = [(tmp_path / run / "metrics.jsonl").read_text().splitlines() for run in ("whole", "cut")]
    final = [json.loads(run[-1]) for run in lines]
    assert len(lines[0]) == len(lines[1]) == 6
    assert all(abs(final[0][k] - final[1][k]) < 1e-6 for k in final[0] if k != "tokens_per_s")


def test_nan_loss_stops_training_names_the_term_and_keeps_the_last_checkpoint(tiny_world, tiny_blocks, tmp_path,
                                                                              monkeypatch):
    trainer = _trainer(tiny_world, method="pro")
    real = objectives.balance

    def balance_poisoned_at_step_3(scores):
        return real(scores) * (float("nan") if trainer.step == 3 else 1.0)

    monkeypatch.setattr(objectives, "balance", balance_poisoned_at_step_3)
    with pytest.raises(TrainingDiverged, match="'balance' is nan at step 3.*step-000002.pt"):
        trainer.fit(tiny_blocks, tmp_path)
    assert [p.name for p in (tmp_path / "checkpoints").iterdir()] == ["step-000002.pt"]


@pytest.fixture
def two_model_dirs(tiny_world, tmp_path):
    from proceedings.pro.tiny_world import tiny_model

    a, tokenizer = tiny_world
    b, _ = tiny_model(seed=1)
    dirs = tmp_path / "a", tmp_path / "b"
    for model, path in zip((a, b), dirs):
        save_model_dir(model, tokenizer, path, {"made_by": "test"})
    return dirs


def test_merge_is_the_exact_weighted_sum_and_leaves_inputs_untouched(two_model_dirs, tmp_path):
    from proceedings.pro.release import load_model_dir

    a_dir, b_dir = two_model_dirs
    digests = weights_digest(a_dir), weights_digest(b_dir)
    attack_dir("merge", a_dir, tmp_path / "merged", other=b_dir, alpha=0.3)
    assert (weights_digest(a_dir), weights_digest(b_dir)) == digests
    a, b, merged = (load_model_dir(d)[0].state_dict() for d in (a_dir, b_dir, tmp_path / "merged"))
    for name, tensor in merged.items():
        assert (tensor - (0.7 * a[name] + 0.3 * b[name])).abs().max() <= 1e-6, name
    manifest = json.loads((tmp_path / "merged" / "manifest.json").read_text())
    assert manifest["attack"] == "merge" and manifest["source_digest"] == digests[0]


def test_attack_refuses_to_write_over_its_input(two_model_dirs):
    with pytest.raises(ProceedingsError, match="never modify"):
        attack_dir("quantize", two_model_dirs[0], two_model_dirs[0])


def test_int8_round_trip_is_close_and_pruning_zeroes_the_fraction(tiny_world):
    model = tiny_world[0]
    weight = model.get_decoder().layers[0].mlp.up_proj.weight
    quantized = attacks.quantize(model, bits=8).get_decoder().layers[0].mlp.up_proj.weight
    step = weight.abs().amax(1, keepdim=True) / 127
    assert ((quantized - weight).abs() <= step / 2 + 1e-7).all() and not torch.equal(quantized, weight)
    assert len(torch.unique(quantized[0])) <= 255
    pruned = attacks.prune(model, 0.5).get_decoder().layers[0].mlp.up_proj.weight
    assert abs((pruned == 0).float().mean().item() - 0.5) < 0.01
    assert torch.equal(model.get_decoder().layers[0].mlp.up_proj.weight, weight)  # input untouched


def test_released_model_directory_never_holds_a_key(tiny_world, tmp_path):
    (tmp_path / "model" / "key").mkdir(parents=True)
    with pytest.raises(ProceedingsError, match="never carry"):
        save_model_dir(tiny_world[0], tiny_world[1], tmp_path / "model", {})


@pytest.mark.slow  # moved out of the fast suite: the system's fast tests were over 25 s
def test_cli_detect_with_a_foreign_key_exits_2_naming_both_hashes(tiny_pro_run):
    from proceedings.pro.key import load_key

    key_dir = tiny_pro_run[0] / "key"
    done = subprocess.run([sys.executable, "-m", "proceedings", "pro", "detect", "--key", str(key_dir),
                           "--tokenizer", "smollm2-135m", "--text", "some text to score"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert load_key(key_dir).tokenizer_hash in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("train_layers", [None, 1])
def test_split_model_trunk_plus_head_equals_the_full_forward(tiny_world, tiny_blocks, train_layers):
    from proceedings.pro.split_model import SplitLM

    model = copy.deepcopy(tiny_world[0])
    batch = tiny_blocks[:2]
    with torch.no_grad():
        full = model(input_ids=batch).logits
        split = SplitLM(model, train_layers)
        hidden = split.trunk(batch)
        assert torch.allclose(split.head(hidden), full, atol=1e-5)
        assert torch.allclose(split.head(hidden, teacher=True), full, atol=1e-5)
    trained = {id(p) for p in split.trainable()}
    assert all(p.requires_grad == (id(p) in trained) for p in model.parameters())
    assert len(model.get_decoder().layers) == 2  # the full stack is back in place
