"""The speed benchmark the issue asks for (README: "Speed").

- sandbox throughput: trivial sandboxed pytest runs per second (the fixed cost of every run);
- wall time per scored problem: the reference agent's file, Fail->Pass over all configurations;
- parallel scoring: the same problems with 1 and `jobs` processes;
- validation time as the number of bugs grows: `validate` on the first k bugs of a problem.
"""

from __future__ import annotations

import dataclasses
import tempfile
import time
from pathlib import Path
from typing import Any

from proceedings.pbtbench.agents import ReferenceAgent
from proceedings.pbtbench.problem import Benchmark
from proceedings.pbtbench.runner import run_benchmark
from proceedings.pbtbench.pytest_run import run_pytest
from proceedings.pbtbench.sandbox import Sandbox, target_for
from proceedings.pbtbench.scorer import Scorer
from proceedings.pbtbench.test_files import reference_test_file
from proceedings.pbtbench.trigger import validate


def measure_speed(bench: Benchmark, problem_ids: list[str] | None = None, jobs: int = 2,
                  sandbox_runs: int = 10, validation_runs: int = 2) -> dict[str, Any]:
    problems = bench.select(problem_ids) if problem_ids else list(bench)[:3]
    sandbox = Sandbox()
    target = target_for(problems[0], ())
    started = time.perf_counter()
    for _ in range(sandbox_runs):
        run_pytest(sandbox, "speed_test.py", "def test_nothing():\n    pass\n", target, 0)
    throughput = sandbox_runs / (time.perf_counter() - started)

    per_problem = []
    for problem in problems:
        code = reference_test_file(problem, problem.admitted_bugs())
        report = Scorer(problem, sandbox).score(code)
        per_problem.append({"problem": problem.id, "bugs": len(report.bugs), "sandbox_runs": report.runs,
                            "wall_s": report.wall_s, "recall": report.recall})

    parallel = {}
    for workers in sorted({1, jobs}):
        with tempfile.TemporaryDirectory() as out:
            begun = time.perf_counter()
            run_benchmark(ReferenceAgent(), problems, Path(out), jobs=workers)
            parallel[f"jobs={workers}"] = round(time.perf_counter() - begun, 2)

    growth = []
    largest = max(problems, key=lambda p: len(p.admitted_bugs()))
    for k in range(1, len(largest.admitted_bugs()) + 1):
        subset = dataclasses.replace(largest, bugs=largest.admitted_bugs()[:k])
        begun = time.perf_counter()
        validate(subset, runs=validation_runs, write=False)
        growth.append({"bugs": k, "wall_s": round(time.perf_counter() - begun, 2)})

    return {"sandbox_level": sandbox.level, "sandbox_runs_per_s": round(throughput, 3),
            "scored_problems": per_problem, "parallel_scoring_wall_s": parallel,
            "validation_growth": {"problem": largest.id, "runs_per_cell": validation_runs, "points": growth}}
