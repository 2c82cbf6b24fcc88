"""The CLI: solve's exit codes by verdict with saved certificates, the verbs from gen-bench to
evaluate and simulate, and one-line errors (exit 2) for bad specs and backends."""

import csv
import json

import pytest
import yaml
from typer.testing import CliRunner

from proceedings.core.errors import ProceedingsError
from proceedings.neurosyntheos.cli import app

runner = CliRunner()


def write(tmp_path, name, prop, variables):
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump({"property": prop, "variables": variables}))
    return path


X = {"name": "x", "type": "Int", "owner": "system"}
E = {"name": "e", "type": "Int", "owner": "environment"}


def test_solve_exits_10_and_20_by_verdict_and_saves_a_replayable_controller(tmp_path):
    real = write(tmp_path, "G-real", "G([x > 0])", [X])
    unreal = write(tmp_path, "G-unreal", "G([x > e] & [x < e])", [X, E])
    done = runner.invoke(app, ["solve", str(real), "--timeout", "30", "--save", str(tmp_path / "out")])
    assert done.exit_code == 10 and "REALIZABLE" in done.output
    certificate = json.loads((tmp_path / "out" / "controller.json").read_text())
    assert certificate["verdict"] == "REALIZABLE"
    assert runner.invoke(app, ["simulate", str(tmp_path / "out" / "controller.json"), "--steps", "50"]).exit_code == 0
    assert runner.invoke(app, ["check", str(real), str(tmp_path / "out" / "controller.json")]).exit_code == 0
    certificate["clauses"].append([["l0", False]])  # "x > 0 never holds": unproved, so refused
    (tmp_path / "forged.json").write_text(json.dumps(certificate))
    refused = runner.invoke(app, ["check", str(real), str(tmp_path / "forged.json")])
    assert refused.exit_code == 1 and "is not proved valid" in refused.output
    assert runner.invoke(app, ["solve", str(unreal), "--timeout", "30"]).exit_code == 20


def test_an_exhausted_budget_is_unknown_never_a_verdict(tmp_path):
    spec = write(tmp_path, "visits", "G([x >= 0] & [x <= 9]) & G(F([x == 1])) & G(F([x == 5])) & G(F([x == 8]))", [X])
    done = runner.invoke(app, ["solve", str(spec), "--timeout", "0.05"])
    assert done.exit_code == 30 and "UNKNOWN" in done.output


def test_gen_bench_collect_train_and_evaluate_chain(tmp_path):
    assert runner.invoke(app, ["gen-bench", "--out", str(tmp_path / "bench"), "--scale", "tiny"]).exit_code == 0
    train = tmp_path / "bench" / "train"
    assert len(list(train.glob("*.yaml"))) == 3
    for spec in train.glob("*.yaml"):
        if not spec.name.startswith("visits-2-4-6"):
            spec.unlink()  # one training spec (one CEGRES tautology) keeps the test short
    assert runner.invoke(app, ["collect-traces", "--bench-dir", str(train), "--out", str(tmp_path / "traces"),
                               "--timeout", "10"]).exit_code == 0
    model = tmp_path / "model.pt"
    done = runner.invoke(app, ["train", "--traces", str(tmp_path / "traces"), "--bench-dir", str(train),
                               "--out", str(model), "--steps", "5", "--lm-steps", "5"])
    assert done.exit_code == 0, done.output
    test = tmp_path / "bench" / "test"
    for spec in sorted(test.glob("*.yaml"))[1:]:
        spec.unlink()
    out = tmp_path / "results.csv"
    done = runner.invoke(app, ["evaluate", "--bench-dir", str(test), "--arms", "cegres,neuro", "--predictor", str(model),
                               "--timeout", "5", "--out", str(out)])
    assert done.exit_code == 0, done.output
    rows = list(csv.DictReader(out.open()))
    assert [r["arm"] for r in rows] == ["cegres", "neuro"]
    assert all(r["verdict"] in (r["expected"], "UNKNOWN") for r in rows)
    from proceedings.neurosyntheos.model_io import load_predictor
    assert load_predictor(model).lm is not None and rows[1]["injected_lm"].isdigit()  # the model travels with the file


def test_gen_bench_splits_by_family_with_no_training_spec_of_the_held_out_family(tmp_path):
    assert runner.invoke(app, ["gen-bench", "--out", str(tmp_path), "--held-out-family", "elevator"]).exit_code == 0
    families = {split: {yaml.safe_load(p.read_text())["family"].split("-")[0] for p in (tmp_path / split).glob("*.yaml")}
                for split in ("train", "test")}
    assert families["test"] == {"elevator"} and "elevator" not in families["train"] and len(families["train"]) == 3


@pytest.mark.parametrize("args, message", [
    (["gen-bench", "--out", "BENCH", "--held-out-family", "lift"], "is not a held-out family"),
    (["solve", "missing.yaml"], "does not exist"),
    (["solve", "SPEC", "--backend", "strix"], "backend 'strix' is not on PATH"),
    (["solve", "SPEC", "--backend", "spot"], "unknown backend"),
    (["evaluate", "--bench-dir", "BENCH", "--arms", "cegres,magic"], "--arms takes"),
    (["solve", "SPEC", "--predictor", "nothing.pt"], "does not exist"),
])
def test_bad_input_is_a_one_line_error(tmp_path, args, message):
    spec = write(tmp_path, "ok", "G([x > 0])", [X])
    args = [str(spec) if a == "SPEC" else str(tmp_path) if a == "BENCH" else a for a in args]
    result = runner.invoke(app, args)
    assert isinstance(result.exception, ProceedingsError) and message in str(result.exception)
    assert "\n" not in str(result.exception)
