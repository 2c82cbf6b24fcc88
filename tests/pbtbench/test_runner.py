"""Runs are resumable: a killed run, resumed, ends with the same summary and no duplicated lines."""

import json
import signal
import subprocess
import sys
import time

import pytest

from proceedings.pbtbench.agents import EmptyAgent, ReferenceAgent
from proceedings.pbtbench.runner import read_results, run_benchmark
from tests.pbtbench.conftest import subset_problem


@pytest.mark.parametrize("agent, recall", [pytest.param(ReferenceAgent, 1.0, marks=pytest.mark.slow),
                                           (EmptyAgent, 0.0)])
def test_resume_after_a_cut_short_line_gives_the_same_summary(tmp_path, agent, recall):
    lru_problem = subset_problem(tmp_path / "problems", "cachetools-caches", ["rr-delete-stale-index"])
    full = run_benchmark(agent(), [lru_problem], tmp_path / "full", runs=2)
    assert full["recall"] == recall and full["instances"] == 2
    partial = tmp_path / "partial"
    partial.mkdir()
    first_line = (tmp_path / "full" / "results.jsonl").read_text().splitlines()[0]
    # a run killed while writing its second line
    (partial / "results.jsonl").write_text(first_line + '\n{"problem": "cachetools-caches", "run": 1, "bu')
    resumed = run_benchmark(agent(), [lru_problem], partial, runs=2, resume=True)
    lines = read_results(partial / "results.jsonl")
    assert sorted((r["problem"], r["run"]) for r in lines) == [("cachetools-caches", 0), ("cachetools-caches", 1)]
    assert {k: v for k, v in resumed.items() if k != "wall_s"} == {k: v for k, v in full.items() if k != "wall_s"}
    assert (partial / "transcripts" / "cachetools-caches.1.jsonl").exists()
    assert (partial / "tests" / "cachetools-caches.1.py").read_text() == (
        tmp_path / "full" / "tests" / "cachetools-caches.1.py").read_text()


def test_a_run_folder_is_never_overwritten_without_resume(tmp_path, lru_problem):
    run_benchmark(EmptyAgent(), [lru_problem], tmp_path / "out")
    with pytest.raises(Exception, match="--resume"):
        run_benchmark(EmptyAgent(), [lru_problem], tmp_path / "out")


@pytest.mark.slow
def test_killing_the_cli_and_resuming_leaves_no_duplicates(tmp_path):
    problems = tmp_path / "problems"
    subset_problem(problems, "cachetools-caches", ["sized-exact-capacity"])
    subset_problem(problems, "boltons-indexedset", ["real-index-first-interval"])
    out = tmp_path / "run"
    command = [sys.executable, "-m", "proceedings", "pbtbench", "run", "--agent", "default-strategy", "--out", str(out),
               "--problems-dir", str(problems)]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline and len(read_results(out / "results.jsonl")) < 1:
        time.sleep(0.1)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done_before = len(read_results(out / "results.jsonl"))
    assert 1 <= done_before <= 2
    resumed = subprocess.run(command + ["--resume"], capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    lines = (out / "results.jsonl").read_text().splitlines()
    assert len(lines) == 2 == len({(json.loads(l)["problem"], json.loads(l)["run"]) for l in lines})
    summary = json.loads((out / "summary.json").read_text())
    assert summary["instances"] == 2 and summary["bugs"] == 2
