"""`proceedings orthrus ...`: bad input is one line and exit code 2, before any model is loaded."""

import sys

import pytest

from proceedings.cli import main


@pytest.mark.parametrize("args, message", [
    (["info", "--block-size", "70"], "block size B must lie in [2, 64]"),
    (["generate", "hi", "--block-size", "1"], "block size B must lie in [2, 64]"),
    (["audit", "--prompts", "MISSING"], "does not exist"),
    (["audit", "--prompts", "EMPTY", "--precision", "fp8"], "unknown precision 'fp8'"),
    (["bench", "--prompts", "EMPTY"], "holds no prompt"),
    (["merge-export", "--out", "FULL", "--view", "MISSING"], "already exists and is not an empty folder"),
    (["train", "--out", "FULL", "--precision", "fp16"], "unknown precision 'fp16'"),
    (["train", "--out", "FULL", "--attention", "flex"], "FlexAttention training needs a CUDA GPU"),
    (["train", "--out", "FULL", "--kl-weight", "-1"], "the KL weight at least 0"),
    (["train", "--out", "FULL", "--gamma", "0"], "gamma must be positive"),
])
def test_bad_input_is_one_line_and_exit_code_2(tmp_path, monkeypatch, capsys, args, message):
    (tmp_path / "EMPTY").write_text("\n")
    args = [str(tmp_path / a) if a in ("MISSING", "EMPTY") else str(tmp_path) if a == "FULL" else a for a in args]
    monkeypatch.setattr(sys, "argv", ["proceedings", "orthrus", *args])
    with pytest.raises(SystemExit) as exit_:
        main()
    output = " ".join((capsys.readouterr().err).split())
    assert exit_.value.code == 2 and message in output and "Traceback" not in output


def test_training_data_made_with_another_base_is_refused_in_one_line_with_exit_code_2(
        pattern_base, tmp_path, monkeypatch, capsys):
    import json

    from proceedings.core.selfdistill import base_fingerprint
    from proceedings.orthrus import cli
    from proceedings.orthrus.model import OrthrusModel

    data = tmp_path / "responses.jsonl"
    line = {"prompt": "p", "prompt_ids": [5, 6], "response_ids": [7, 8], "base": "0123456789abcdef"}
    data.write_text(json.dumps(line))
    monkeypatch.setattr(cli, "_model", lambda base, view, block, device: OrthrusModel.from_base(pattern_base, block))
    monkeypatch.setattr(sys, "argv", ["proceedings", "orthrus", "train", "--out", str(tmp_path / "o"),
                                      "--data", str(data)])
    with pytest.raises(SystemExit) as exit_:
        main()
    output = " ".join(capsys.readouterr().err.split())
    assert exit_.value.code == 2 and "Traceback" not in output
    assert f"made with base 0123456789abcdef, but the loaded base is {base_fingerprint(pattern_base)}" in output
