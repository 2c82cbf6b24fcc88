"""The user's verbs on the real Cairns feed and on simulated person-days (no model needed)."""

from typer.testing import CliRunner

from proceedings.mobta.cli import app

runner = CliRunner()


def test_ingest_gtfs_reports_the_cairns_counts_and_writes_one_trajectory_per_trip(tmp_path):
    out = tmp_path / "cairns.jsonl"
    result = runner.invoke(app, ["ingest-gtfs", "cairns", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "416 stops, 22 routes, 1,339 trips" in result.output
    assert len(out.read_text().splitlines()) == 1339


def test_simulate_encode_and_evaluate_a_simulated_set_against_itself(tmp_path):
    days = tmp_path / "days.csv"
    city = "synthetic:polycentric:5"
    assert runner.invoke(app, ["simulate", "--city", city, "--n", "120", "--out", str(days)]).exit_code == 0
    tokens = tmp_path / "days.txt"
    result = runner.invoke(app, ["encode", str(days), "--city", city, "--out", str(tokens)])
    assert result.exit_code == 0, result.output
    assert tokens.read_text().startswith("<mob> <t00> <c")
    result = runner.invoke(app, ["evaluate", str(days), "--real", str(days), "--city", city])
    assert result.exit_code == 0, result.output
    assert "mean" in result.output and "0.0000" in result.output


def test_encode_writes_the_digits_format_when_asked(tmp_path):
    days, tokens = tmp_path / "days.csv", tmp_path / "days.txt"
    city = "synthetic:polycentric:5"
    assert runner.invoke(app, ["simulate", "--city", city, "--n", "20", "--out", str(days)]).exit_code == 0
    result = runner.invoke(app, ["encode", str(days), "--city", city, "--cell-format", "digits", "--out", str(tokens)])
    assert result.exit_code == 0, result.output
    first = tokens.read_text().splitlines()[0].split(" ")
    assert first[:2] == ["mob", "00:00"] and first[2].startswith("r") and first[-1] == "<eos>"
