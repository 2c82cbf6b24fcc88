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
])
def test_bad_input_is_one_line_and_exit_code_2(tmp_path, monkeypatch, capsys, args, message):
    (tmp_path / "EMPTY").write_text("\n")
    args = [str(tmp_path / a) if a in ("MISSING", "EMPTY") else a for a in args]
    monkeypatch.setattr(sys, "argv", ["proceedings", "orthrus", *args])
    with pytest.raises(SystemExit) as exit_:
        main()
    output = " ".join((capsys.readouterr().err).split())
    assert exit_.value.code == 2 and message in output and "Traceback" not in output
