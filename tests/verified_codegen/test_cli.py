"""The CLI: `check` refuses tampered files and cheats before any checker runs; bad input is one error."""

import pytest
from typer.testing import CliRunner

from proceedings.core.errors import ProceedingsError
from proceedings.verified_codegen.cli import app
from proceedings.verified_codegen.tasks import SHIPPED

runner = CliRunner()


def test_check_rejects_a_tampered_spec_and_a_cheat_with_the_reason(tmp_path):
    original = (SHIPPED / "prod_seq" / "task.dfy").read_text()
    tampered = tmp_path / "tampered.dfy"
    tampered.write_text(original.replace("ensures r == Prod(a)", "ensures true"))
    result = runner.invoke(app, ["check", str(SHIPPED / "prod_seq"), str(tampered)])
    assert result.exit_code == 1 and "rejected" in result.output and "spec tampering" in result.output
    cheat = tmp_path / "cheat.dfy"
    cheat.write_text(original.replace("r := r * a[i];", "r := r * a[i];\n        assume false;"))
    result = runner.invoke(app, ["check", str(SHIPPED / "prod_seq"), str(cheat)])
    assert result.exit_code == 1 and "rejected" in result.output and "`assume`" in result.output


def test_bad_input_is_one_error_naming_what_is_wrong(tmp_path):
    result = runner.invoke(app, ["check", str(SHIPPED / "prod_seq"), str(tmp_path / "nothing.dfy")])
    assert isinstance(result.exception, ProceedingsError) and "does not exist" in str(result.exception)
    result = runner.invoke(app, ["solve", str(SHIPPED / "prod_seq"), "--workflow", "waterfall"])
    assert isinstance(result.exception, ProceedingsError) and "unknown workflow" in str(result.exception)
    result = runner.invoke(app, ["convert", "verina", str(tmp_path), str(tmp_path / "out")])
    assert isinstance(result.exception, ProceedingsError) and "only algoveri" in str(result.exception)


def test_the_paper_scale_stops_naming_the_missing_lean_toolchain(monkeypatch, tmp_path):
    from proceedings.verified_codegen.experiment import reproduce

    monkeypatch.delenv("VCG_LEAN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no `lean` (nor anything else) on it
    with pytest.raises(ProceedingsError, match="scale paper: Lean toolchain not found"):
        reproduce("paper")


@pytest.mark.external("coqc")
def test_bench_runs_resumes_reports_by_budget_and_refuses_other_settings(tmp_path):
    import json

    from tests.verified_codegen.test_checkers import write_twice

    write_twice(tmp_path / "tasks" / "twice")
    args = ["bench", str(tmp_path / "tasks"), "--out", str(tmp_path / "run"), "--agent", "oracle",
            "--workflows", "joint", "--budget", "4"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    assert report["workflows"]["joint"]["solve_rate_b1"] == 1.0 and set(report["workflows"]["joint"]) >= {
        "solve_rate_b1", "solve_rate_b2", "solve_rate_b4"} and "joint: B=1: 1.00" in first.output
    again = runner.invoke(app, args)  # resumes: the stored attempt, no new line
    assert again.exit_code == 0 and len((tmp_path / "run" / "attempts.jsonl").read_text().splitlines()) == 1
    other = runner.invoke(app, args[:-1] + ["8"])
    assert isinstance(other.exception, ProceedingsError) and "other settings" in str(other.exception)
    unknown = runner.invoke(app, args[:7] + ["waterfall"])
    assert isinstance(unknown.exception, ProceedingsError) and "unknown workflow(s) waterfall" in str(unknown.exception)
    empty = runner.invoke(app, ["bench", str(tmp_path / "run"), "--out", str(tmp_path / "run2")])
    assert isinstance(empty.exception, ProceedingsError) and "no task folders" in str(empty.exception)


@pytest.mark.slow  # two spawned workers import the package: ~5 s
@pytest.mark.external("coqc")
def test_bench_with_two_workers_deals_the_tasks_and_reports_invocations_per_minute(tmp_path):
    import json

    from tests.verified_codegen.test_checkers import write_twice

    for name in ("twice", "twice_again"):
        folder = write_twice(tmp_path / "tasks" / name)
        meta = json.loads((folder / "task.json").read_text())
        (folder / "task.json").write_text(json.dumps({**meta, "id": name}))
    result = runner.invoke(app, ["bench", str(tmp_path / "tasks"), "--out", str(tmp_path / "run"), "--agent", "oracle",
                                 "--workflows", "joint,sequential", "--budget", "2", "--workers", "2"])
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    stores = sorted(p.name for p in (tmp_path / "run").glob("attempts.*.jsonl"))
    assert stores == ["attempts.0.jsonl", "attempts.1.jsonl"]  # one task each, both workflows in its worker
    assert [len((tmp_path / "run" / s).read_text().splitlines()) for s in stores] == [2, 2]
    assert report["workflows"]["sequential"]["solve_rate_b2"] == 1.0 and report["this_run"]["new_checks"] == 6
    assert report["this_run"]["checks_per_minute"] > 0
