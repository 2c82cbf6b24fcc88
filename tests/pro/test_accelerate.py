"""The GPU paths through Accelerate, run on the CPU: bf16 mixed precision and data parallelism."""

import copy
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from safetensors.torch import load_file

TRAIN = ["-m", "proceedings", "pro", "train", "--model", "tiny", "--batch-size", "4", "--seq-len", "32",
         "--train-layers", "all", "--lr", "1e-2"]


def _run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]


def _metrics(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]


BF16_RUN = """
import sys
from dataclasses import replace
from proceedings.pro.data import read_documents, token_blocks
from proceedings.pro.experiment import CONFIGS
from proceedings.pro.tiny_world import tiny_model
from proceedings.pro.training import WatermarkTrainer
cfg, (model, tokenizer) = CONFIGS["tiny"], tiny_model(seed=0)
train = replace(cfg.train, steps=1, batch_size=2, policy_warmup_steps=2, mixed_precision="bf16")
WatermarkTrainer(model, tokenizer, train, policy=cfg.policy, kgw=cfg.kgw).fit(
    token_blocks(read_documents(), tokenizer, cfg.train.seq_len), sys.argv[1])
"""


@pytest.mark.slow  # moved out of the fast suite: the system's fast tests were over 25 s
def test_bf16_mixed_precision_computes_in_bf16_and_keeps_fp32_weights(tiny_world, tiny_blocks, tmp_path):
    from proceedings.pro.experiment import CONFIGS
    from proceedings.pro.training import WatermarkTrainer

    _run([sys.executable, "-c", BF16_RUN, str(tmp_path / "bf16")])  # its own process: Accelerate fixes
    cfg = CONFIGS["tiny"]                                               # one precision per process
    train = replace(cfg.train, steps=1, batch_size=2, policy_warmup_steps=2)
    WatermarkTrainer(copy.deepcopy(tiny_world[0]), tiny_world[1], train, policy=cfg.policy, kgw=cfg.kgw).fit(
        tiny_blocks, tmp_path / "fp32")
    bf16, fp32 = _metrics(tmp_path / "bf16"), _metrics(tmp_path / "fp32")
    assert bf16[0]["kd"] != fp32[0]["kd"]  # autocast really ran the model in bf16 ...
    assert bf16[0]["kd"] == pytest.approx(fp32[0]["kd"], rel=1e-2)  # ... to about bf16's precision
    assert bf16[0]["balance"] == pytest.approx(fp32[0]["balance"], rel=1e-4)  # the policy stays fp32
    weights = load_file(tmp_path / "bf16" / "model" / "model.safetensors")
    assert {str(w.dtype) for w in weights.values()} == {"torch.float32"}  # fp32 master weights, released


@pytest.mark.slow
def test_two_processes_train_what_one_process_trains(tmp_path):
    kgw = [*TRAIN, "--method", "kgw-distill", "--steps", "4"]
    _run([sys.executable, *kgw, "--out", str(tmp_path / "one")])
    _run([str(Path(sys.executable).parent / "accelerate"), "launch", "--multi_gpu", "--num_processes", "2",
          "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no", *kgw, "--out", str(tmp_path / "two")])

    manifest = json.loads((tmp_path / "two" / "model" / "manifest.json").read_text())
    assert manifest["processes"] == 2  # the batch really was split
    one, two = _metrics(tmp_path / "one"), _metrics(tmp_path / "two")
    assert [r["step"] for r in two] == [0, 1, 2, 3]  # one writer
    for a, b in zip(one, two):
        assert b["kd"] == pytest.approx(a["kd"], rel=1e-5)  # mean of the shards' losses = the batch loss
    weights_one = load_file(tmp_path / "one" / "model" / "model.safetensors")
    weights_two = load_file(tmp_path / "two" / "model" / "model.safetensors")
    assert max((weights_one[k] - weights_two[k]).abs().max().item() for k in weights_one) < 1e-4
