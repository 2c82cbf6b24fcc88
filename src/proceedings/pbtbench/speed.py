"""The speed benchmark the issue asks for (README: "Speed").

- sandboxed runs per second, per isolation level: a trivial pytest file against a problem's
  library (the fixed cost of every run: namespaces, mounts, interpreter, pytest, Hypothesis);
- seconds per scored problem, per agent: from a run folder's results (`per_agent_scoring`);
- validation time per bug: from the lock files `validate` wrote (`validation_per_bug`).
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

from proceedings.pbtbench.problem import Benchmark, Problem
from proceedings.pbtbench.pytest_run import run_pytest
from proceedings.pbtbench.runner import read_results
from proceedings.pbtbench.sandbox import Sandbox, available_level, target_for


def sandbox_throughput(problem: Problem, runs: int = 8) -> dict[str, float]:
    """Trivial sandboxed pytest runs per second at the best isolated level and without isolation."""
    target = target_for(problem)
    rates = {}
    for level in dict.fromkeys((available_level(), "process-group")):
        sandbox = Sandbox(level=level, unsafe=True)
        started = time.perf_counter()
        for _ in range(runs):
            run_pytest(sandbox, "speed_test.py", "def test_nothing():\n    pass\n", target, 0)
        rates[level] = round(runs / (time.perf_counter() - started), 3)
    return rates


def per_agent_scoring(runs_root: Path) -> dict[str, dict[str, float]]:
    """Per agent folder under `runs_root`: mean seconds and sandboxed runs per scored problem."""
    table = {}
    for folder in sorted(p for p in runs_root.iterdir() if (p / "results.jsonl").exists()):
        lines = [r for r in read_results(folder / "results.jsonl") if not r.get("infra_error")]
        if lines:
            table[folder.name] = {"seconds_per_problem": round(statistics.fmean(r["wall_s"] for r in lines), 2),
                                  "sandbox_runs_per_problem": round(statistics.fmean(r["runs"] for r in lines), 2),
                                  "problems": len(lines)}
    return table


def validation_per_bug(bench: Benchmark) -> dict[str, Any]:
    """Seconds of `validate` per bug, from each problem's lock file (its own measured wall time)."""
    rows = [{"problem": p.id, "bugs": len(p.bugs), "wall_s": p.lock()["wall_s"],
             "seconds_per_bug": round(p.lock()["wall_s"] / len(p.bugs), 2), "runs": p.lock()["runs"]}
            for p in bench if p.lock() is not None]
    return {"median_seconds_per_bug": statistics.median(r["seconds_per_bug"] for r in rows),
            "total_wall_s": round(sum(r["wall_s"] for r in rows), 1), "problems": rows}


def measure_speed(bench: Benchmark, problem_id: str, runs_root: Path | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {"sandbox_runs_per_s": sandbox_throughput(bench[problem_id]),
                              "throughput_problem": problem_id, "validation": validation_per_bug(bench)}
    if runs_root is not None:
        result["scoring"] = per_agent_scoring(runs_root)
    return result
