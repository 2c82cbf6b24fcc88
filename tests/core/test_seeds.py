"""Several seeds: parsing, the per-seed record, and means and intervals that equal numpy's."""

import importlib.machinery
import json
import re
import sys
import types

import numpy as np
import pytest
from scipy import stats
from typer.testing import CliRunner

from proceedings.cli import app
from proceedings.core.errors import ProceedingsError
from proceedings.core.results import Result, results_root
from proceedings.core.seeds import mean_record, parse_seeds, spreads
from proceedings.registry import System


@pytest.mark.parametrize("text,message", [("", "comma-separated"), ("0,x", "'x' is not an integer"),
                                          ("0,1,0", "seed(s) 0 given twice"), ("1,,2", "comma-separated")])
def test_bad_seed_lists_are_one_line_errors(text, message):
    with pytest.raises(ProceedingsError, match=re.escape(message)):
        parse_seeds(text)


def test_seed_lists_parse_in_order():
    assert parse_seeds("2, 0,1") == [2, 0, 1]


def test_means_keep_agreeing_values_and_list_differing_ones():
    merged = mean_record([{"a": 1.0, "b": {"c": 2}, "name": "x", "mode": "p"},
                          {"a": 3.0, "b": {"c": 4}, "name": "x", "mode": "q"}])
    assert merged == {"a": 2.0, "b": {"c": 3.0}, "name": "x", "mode": {"per_seed": ["p", "q"]}}
    assert set(spreads([{"a": 1.0, "b": {"c": 2}}, {"a": 3.0, "b": {"c": 4}}])) == {"a", "b.c"}


def _fake_experiment():
    """A tiny system: its 'auc' is a seeded draw, its verdict is stated on the interval's low end."""
    module = types.ModuleType("proceedings.pro.experiment")
    module.__spec__ = importlib.machinery.ModuleSpec("proceedings.pro.experiment", None)

    def reproduce(scale, seed=0):
        rng = np.random.default_rng(seed)
        metrics = {"auc": float(rng.uniform(0.7, 0.9)), "table": {"tpr": float(rng.uniform(0.2, 0.4))}}
        return Result(system="pro", scale=scale, claim="c", metrics=metrics, baseline={"name": "b", "auc": 0.6},
                      checks=verdict(metrics, {"auc": 0.6}), seed=seed)

    def verdict(metrics, baseline, intervals=None):
        low = intervals["metrics.auc"][0] if intervals else metrics["auc"]
        return {"AUC interval above the baseline": low > baseline["auc"]}

    module.reproduce, module.verdict = reproduce, verdict
    return module


def test_seeds_record_every_seed_and_their_means_and_intervals_equal_numpys(monkeypatch):
    fake = _fake_experiment()
    monkeypatch.setitem(sys.modules, "proceedings.pro.experiment", fake)
    result = System("pro", "t", "c").reproduce("tiny", seeds=(0, 1, 2))
    record = json.loads((results_root() / "pro" / "tiny.json").read_text())
    values = np.array([run["metrics"]["auc"] for run in record["seeds"]["per_seed"]])
    assert record["seeds"]["seeds"] == [0, 1, 2] and len(values) == 3 and len(set(values)) == 3
    spread = record["seeds"]["spread"]["metrics.auc"]
    half = stats.t.ppf(0.975, 2) * values.std(ddof=1) / np.sqrt(3)
    assert spread["mean"] == pytest.approx(values.mean()) == record["metrics"]["auc"]
    assert spread["sd"] == pytest.approx(values.std(ddof=1))
    assert spread["ci95"] == pytest.approx([values.mean() - half, values.mean() + half])
    tpr = np.array([run["metrics"]["table"]["tpr"] for run in record["seeds"]["per_seed"]])
    assert record["metrics"]["table"]["tpr"] == pytest.approx(tpr.mean())
    assert result.checks == {"AUC interval above the baseline": values.mean() - half > 0.6}


def test_cli_refuses_bad_seeds_before_running_anything(tmp_path):
    runner = CliRunner()
    for bad in ("0,0", "a", ""):
        out = runner.invoke(app, ["reproduce", "nvium", "--seeds", bad])
        assert isinstance(out.exception, ProceedingsError)
    assert not (results_root() / "nvium").exists()
    both = runner.invoke(app, ["reproduce", "nvium", "--seed", "1", "--seeds", "0,1"])
    assert "not both" in str(both.exception)


def test_combine_restates_the_verdict_over_seeds_that_ran_apart(monkeypatch, tmp_path):
    fake = _fake_experiment()
    monkeypatch.setitem(sys.modules, "proceedings.pro.experiment", fake)
    system = System("pro", "t", "c")
    folders = []
    for seed in (0, 1, 2):  # each seed in its own results folder, as on three machines
        monkeypatch.setenv("PROCEEDINGS_RESULTS", str(tmp_path / f"seed{seed}"))
        system.reproduce("tiny", seeds=(seed,))
        folders.append(tmp_path / f"seed{seed}")
    monkeypatch.setenv("PROCEEDINGS_RESULTS", str(tmp_path / "all"))
    together = system.reproduce("tiny", seeds=(0, 1, 2))
    apart = system.combine("tiny", folders)
    assert apart.seeds["seeds"] == [0, 1, 2] and apart.metrics == together.metrics and apart.checks == together.checks
    assert json.loads((tmp_path / "all" / "pro" / "tiny.json").read_text())["seeds"]["seeds"] == [0, 1, 2]


def test_combine_refuses_a_repeated_seed_a_combined_record_and_a_single_source(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "proceedings.pro.experiment", _fake_experiment())
    system = System("pro", "t", "c")
    monkeypatch.setenv("PROCEEDINGS_RESULTS", str(tmp_path / "a"))
    system.reproduce("tiny", seeds=(0,))
    monkeypatch.setenv("PROCEEDINGS_RESULTS", str(tmp_path / "b"))
    system.reproduce("tiny", seeds=(0, 1))
    with pytest.raises(ProceedingsError, match="given by more than one source"):
        system.combine("tiny", [tmp_path / "a", tmp_path / "a"])
    with pytest.raises(ProceedingsError, match="already a several-seed record"):
        system.combine("tiny", [tmp_path / "a", tmp_path / "b"])
    with pytest.raises(ProceedingsError, match="at least two"):
        system.combine("tiny", [tmp_path / "a"])


def test_combine_refuses_runs_of_different_presets(monkeypatch, tmp_path):
    from dataclasses import replace

    from proceedings.core import results

    monkeypatch.setitem(sys.modules, "proceedings.pro.experiment", _fake_experiment())
    system = System("pro", "t", "c")
    for seed, steps in ((0, 100), (1, 200)):
        run = system.experiment().reproduce("tiny", seed=seed)
        results.save(replace(run, config={"train": {"steps": steps, "seed": seed}}), root=tmp_path / f"s{seed}")
    with pytest.raises(ProceedingsError, match="different configurations"):
        system.combine("tiny", [tmp_path / "s0", tmp_path / "s1"])


def test_an_experiments_contrasts_join_each_seeds_metrics_and_get_seed_intervals(monkeypatch, tmp_path):
    fake = _fake_experiment()
    fake.contrasts = lambda metrics, baseline: {"auc_gain": metrics["auc"] - baseline["auc"]}
    monkeypatch.setitem(sys.modules, "proceedings.pro.experiment", fake)
    monkeypatch.setenv("PROCEEDINGS_RESULTS", str(tmp_path))
    result = System("pro", "t", "c").reproduce("tiny", seeds=(0, 1, 2))
    gains = [run["metrics"]["auc"] - 0.6 for run in result.seeds["per_seed"]]
    assert [run["metrics"]["contrasts"]["auc_gain"] for run in result.seeds["per_seed"]] == gains
    assert result.seeds["spread"]["metrics.contrasts.auc_gain"]["values"] == pytest.approx(gains)
