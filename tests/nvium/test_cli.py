"""The `proceedings nvium` verbs: a whole small workflow, and one-line errors for bad input."""

import sys
from dataclasses import dataclass

import pytest

from proceedings.cli import main

TEXT = "\n".join(f"JULIET {i}: O Romeo, Romeo! wherefore art thou Romeo?" for i in range(200))


@dataclass
class Outcome:
    exit_code: int
    output: str


@pytest.fixture
def invoke(monkeypatch, capsys):
    """Run `proceedings nvium ARGS` in-process through the real entry point (errors -> exit code 2)."""
    def run(*args):
        monkeypatch.setattr(sys, "argv", ["proceedings", "nvium", *map(str, args)])
        with pytest.raises(SystemExit) as exit_:
            main()
        captured = capsys.readouterr()
        return Outcome(exit_.value.code or 0, captured.out + captured.err)
    return run


@pytest.fixture
def data(tmp_path, invoke):
    (tmp_path / "play.txt").write_text(TEXT)
    result = invoke("prepare-data", "--corpus", tmp_path / "play.txt", "--out", tmp_path / "data")
    assert result.exit_code == 0, result.output
    return tmp_path / "data"


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    """An untrained N-vium of the tiny preset, saved: what the bad-input tests load (training is tested above)."""
    from proceedings.nvium.experiment import CONFIGS
    from proceedings.nvium.model import NviumForCausalLM

    folder = tmp_path_factory.mktemp("nvium-checkpoint")
    NviumForCausalLM(CONFIGS["tiny"].model).save_pretrained(folder)
    return folder


def test_prepare_train_eval_sample_bench(tmp_path, data, invoke):
    for name, extra in (("nv", ["--lambda-warmup", "0.5", "--exit-ce-weight", "0.1"]), ("base", ["--baseline"])):
        result = invoke("train", "--out", tmp_path / name, "--data", data, "--preset", "tiny", "--steps", 4, *extra)
        assert result.exit_code == 0, result.output
        assert (tmp_path / name / "model.safetensors").is_file()
    result = invoke("eval", "--model", tmp_path / "nv", "--data", data, "--seq-len", 32)
    assert result.exit_code == 0 and "bits/byte" in result.output
    result = invoke("sample", "--model", tmp_path / "nv", "--prompt", "JULIET", "--tokens", 20)
    assert result.exit_code == 0 and result.output.startswith("JULIET") and "exits taken" in result.output
    result = invoke("bench", "--model", tmp_path / "nv", "--baseline", tmp_path / "base", "--data", data,
                    "--prompts", 2, "--prompt-len", 8, "--tokens", 16, "--batch", 2, "--out", tmp_path / "bench")
    assert result.exit_code == 0, result.output
    assert "predicted" in result.output and (tmp_path / "bench" / "bench.md").is_file()


@pytest.mark.parametrize("args, message", [
    (["train", "--out", "X", "--exits", "3,2,4"], "not strictly increasing"),
    (["train", "--out", "X", "--exits", "1,2,3", "--preset", "tiny"], "must end at the last layer"),
    (["train", "--out", "X", "--lambda", "-0.1"], "lambda must be >= 0"),
    (["train", "--out", "X", "--lambda-warmup", "2"], "lambda warm-up is a fraction"),
    (["train", "--out", "X", "--exit-ce-weight", "-1"], "auxiliary exit cross-entropy needs weight >= 0"),
    (["train", "--out", "X", "--preset", "huge"], "unknown preset"),
    (["sample", "--model", "CKPT", "--temperature", "0"], "temperature must be > 0"),
])
def test_bad_input_is_one_line_and_exit_code_2(tmp_path, data, checkpoint, invoke, args, message):
    args = [str(checkpoint) if a == "CKPT" else str(tmp_path / a) if a == "X" else a for a in args]
    result = invoke(*args, *(["--data", str(data)] if args[0] == "train" else []))
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


def test_corpus_smaller_than_a_sequence_is_one_line(tmp_path, invoke):
    (tmp_path / "tiny.txt").write_text("Alas, poor Yorick!")
    result = invoke("train", "--out", tmp_path / "run", "--data", tmp_path / "tiny.txt", "--preset", "tiny")
    assert result.exit_code == 2 and "fewer than one sequence" in result.output


def test_empty_or_negative_requests_are_one_line_before_any_work(tmp_path, data, checkpoint, invoke):
    model = checkpoint
    bench = ("bench", "--model", model, "--baseline", model, "--data", data, "--prompt-len", 8)
    cases = [
        (("eval", "--model", model, "--data", data, "--seq-len", 0), "sequence length must be >= 1"),
        (("eval", "--model", model, "--data", data, "--seq-len", 32, "--tokens", 8), "hold no window of 32"),
        (("sample", "--model", model, "--tokens", -3), "new tokens must be >= 1"),
        ((*bench, "--prompts", 0), "number of prompts must be >= 1"),
        ((*bench, "--prompts", 1, "--tokens", 0), "at least one prompt, one new token"),
        ((*bench, "--prompts", 2, "--batch", 3), "2 prompts cannot be split into batches of 3"),
        (("frontier", "--out", tmp_path / "fr", "--data", data, "--preset", "tiny", "--lambdas=0.1,-0.1", "--steps", 1),
         "lambda must be >= 0"),
    ]
    for args, message in cases:
        result = invoke(*args)
        assert result.exit_code == 2, result.output
        assert message in " ".join(result.output.split()) and "Traceback" not in result.output
    assert not (tmp_path / "fr").exists()  # the bad lambda was refused before the baseline trained


def test_every_verb_runs_torch_with_the_configured_threads(tmp_path, invoke, monkeypatch):
    import torch

    monkeypatch.setenv("PROCEEDINGS_THREADS", "1")
    torch.set_num_threads(2)  # torch's own default on this machine, which the bench numbers once ran with
    try:
        assert invoke("eval", "--model", tmp_path / "missing", "--data", tmp_path).exit_code == 2
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(1)
