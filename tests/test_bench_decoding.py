"""`proceedings bench decoding`: every system's decoder on one target in one run. Fast: the arms on the tiny
pattern-grammar Llama (drafters, a view and N-vium all untrained: lossless decoding does not need them
trained). Slow: the command on SmolLM2 with files saved the way each system's own verbs save them."""

import json

import pytest
import torch
from typer.testing import CliRunner

from proceedings.core.bench import UNCOMPARED, run_benchmark
from proceedings.core.errors import ProceedingsError
from proceedings.core.pattern_lm import pattern_prompts, tiny_target
from proceedings.cli import app
from proceedings.decoding_bench import check_nvium_tokenizer, decoding_arms
from proceedings.nvium.model import NviumForCausalLM
from proceedings.nvium.retrofit import retrofit_llama
from proceedings.orthrus.dual_view import DiffusionView
from proceedings.peagle.drafter import init_drafter

LAYERS = (1, 2, 3)
D2T = torch.tensor(list(range(3, 40)))


@pytest.fixture(scope="module")
def target():
    return tiny_target()


def test_every_greedy_arm_emits_greedy_tokens_and_nvium_is_compared_with_nothing(target, tmp_path):
    drafters = {m: init_drafter(target, m, 1, 4, D2T, LAYERS, seed=0) for m in ("eagle3", "peagle")}
    nvium = retrofit_llama(target, (2, 4), tokenizer="pattern", adapter_rank=4)
    with torch.no_grad():  # open the gates so that the shallow exit is really taken
        for gate in nvium.gates:
            gate.bias.fill_(-0.5)
    reloaded = NviumForCausalLM.from_pretrained(nvium.save_pretrained(tmp_path / "nvium"))  # the --out round trip
    arms = decoding_arms(target, None, drafters, {"orthrus": DiffusionView(target, 4)}, {"nvium": reloaded},
                         ks=(3,), blocks=(4,))
    assert [a.name for a in arms] == ["ar", "lookup-k3", "eagle3-k3", "peagle-k3", "orthrus-b4", "nvium"]
    report = run_benchmark(arms, pattern_prompts(2, 12, 64, seed=5), 10)
    for name, arm in report.arms.items():
        if name == "nvium":
            assert arm.reference == UNCOMPARED and arm.exact_prompts == 0
        else:
            assert arm.reference == "ar" and arm.exact, name
    assert min(e for t in report.arms["nvium"].traces for e in t.extras["exits"]) == 0  # N-vium skipped layers
    table = report.markdown()
    assert "2/2 (ar)" in table and f"| {UNCOMPARED} |" in table


def test_a_peagle_k_beyond_training_is_refused_before_anything_runs(target):
    drafter = init_drafter(target, "peagle", 1, 4, D2T, LAYERS, seed=0)
    with pytest.raises(ProceedingsError, match="outside 1..4"):
        decoding_arms(target, None, {"peagle": drafter}, ks=(7,))


def test_an_nvium_checkpoint_on_another_tokenizer_is_refused():
    check_nvium_tokenizer("run", "smollm2-135m", "smollm2-135m")
    with pytest.raises(ProceedingsError, match="reads the tokens of 'bytes', not of the target 'smollm2-135m'"):
        check_nvium_tokenizer("run", "bytes", "smollm2-135m")


@pytest.mark.slow  # ~25 CPU-s: SmolLM2 loads twice (the files' makers and the command)
def test_the_command_races_saved_drafters_views_and_nvium_on_smollm2(tmp_path):
    from proceedings.core.models import load_causal_lm
    from proceedings.orthrus.model import OrthrusModel
    from proceedings.peagle.checkpoints import save_drafter

    model, tokenizer = load_causal_lm("smollm2-135m", device="cpu", dtype="float32")
    d2t = torch.arange(512)
    save_drafter(init_drafter(model, "peagle", 1, 4, d2t, seed=0), tmp_path / "p.safetensors")
    OrthrusModel.from_base(model, 4, tokenizer=tokenizer).save_view(tmp_path / "view")
    retrofit_llama(model, (15, 30), tokenizer="smollm2-135m").save_pretrained(tmp_path / "nvium")
    files = ["--drafter", str(tmp_path / "p.safetensors"), "--orthrus-view", str(tmp_path / "view"),
             "--nvium", str(tmp_path / "nvium")]
    result = CliRunner().invoke(app, ["bench", "decoding", *files, "--k", "3", "--block", "4", "--prompts", "1",
                                      "--new-tokens", "6", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    arms = json.loads((tmp_path / "bench.json").read_text())["arms"]
    assert set(arms) == {"ar", "lookup-k3", "peagle:p-k3", "orthrus:view-b4", "nvium:nvium"}
    assert all(a["exact_prompts"] == 1 for n, a in arms.items() if n != "nvium:nvium")
    assert arms["nvium:nvium"]["reference"] == UNCOMPARED
