"""The user's pipeline on SmolLM2 at toy sizes: gen-data -> extract -> train (SIGTERM-safe) -> generate ->
bench -> export, each verb through the CLI; bad input raises ProceedingsError (one line, exit 2 from
`proceedings`)."""

import json

import pytest
from typer.testing import CliRunner

from proceedings.core.errors import ProceedingsError
from proceedings.peagle.cli import app

runner = CliRunner()
DATA = ["--prompts", "4", "--max-new-tokens", "12"]


@pytest.mark.slow
def test_the_verbs_chain_from_sharegpt_to_a_vllm_export(tmp_path):
    assert runner.invoke(app, ["gen-data", *DATA]).exit_code == 0
    features, drafter = tmp_path / "features", tmp_path / "peagle.safetensors"
    result = runner.invoke(app, ["extract", "--out", str(features), "--shard-size", "3", *DATA])
    assert result.exit_code == 0, result.output
    assert json.loads((features / "features.json").read_text())["feature_layers"] == [2, 15, 27]
    assert len(list(features.glob("shard-*.safetensors"))) == 2
    result = runner.invoke(app, ["train", "--features", str(features), "--out", str(drafter), "--steps", "3",
                                 "--k-train", "4", "--draft-vocab", "512"])
    assert result.exit_code == 0, result.output
    assert drafter.exists() and (tmp_path / "peagle.safetensors.train.pt").exists()
    result = runner.invoke(app, ["generate", "--drafter", str(drafter), "--prompt", "Name three colours.",
                                 "--max-new-tokens", "12", "--k", "3"])
    assert result.exit_code == 0 and "tau" in result.output, result.output
    result = runner.invoke(app, ["bench", "--drafter", str(drafter), "--prompts", "1", "--new-tokens", "8", "--k", "3"])
    assert result.exit_code == 0 and "1/1 (ar)" in result.output and "peagle:peagle-k3" in result.output, result.output
    result = runner.invoke(app, ["export", "--drafter", str(drafter), "--out", str(tmp_path / "vllm")])
    assert result.exit_code == 0 and (tmp_path / "vllm" / "config.json").exists(), result.output
    result = runner.invoke(app, ["bench", "--drafter", str(drafter), "--prompts", "1", "--k", "9"])
    assert isinstance(result.exception, ProceedingsError) and "outside 1..4" in str(result.exception)
    result = runner.invoke(app, ["train", "--features", str(tmp_path / "nowhere"), "--out", str(drafter)])
    assert isinstance(result.exception, ProceedingsError) and "no features.json" in str(result.exception)
