"""Running an agent over problems (spec 6.3, 7): resumable, one result line per problem x run.

    <out>/metadata.json        agent settings, versions, sandbox level, seeds
    <out>/results.jsonl        one line per (problem, run), appended and fsynced
    <out>/transcripts/<id>.<run>.jsonl   the agent's steps, flushed per step
    <out>/tests/<id>.<run>.py  the submitted test file
    <out>/summary.json, per_bug.csv

`resume=True` skips (problem, run) pairs already in results.jsonl (a line cut short by a kill is
dropped), so a killed run, resumed, ends with the same summary and no duplicated lines. Instances
run in parallel with `jobs` > 1 (a process pool); the summary does not depend on their order.
The installed libraries are hashed before and after: a run that changed them fails loudly.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import os
import platform
from concurrent.futures import as_completed
from dataclasses import asdict
from importlib import metadata
from pathlib import Path
from typing import Any, Callable

from proceedings.core.errors import ProceedingsError
from proceedings.core.runtime import atomic_write_text
from proceedings.pbtbench.agents.base import Agent
from proceedings.pbtbench.metrics import per_bug_rows, summarise
from proceedings.pbtbench.integrity import installed_unchanged
from proceedings.pbtbench.problem import Problem
from proceedings.pbtbench.sandbox import Limits, Sandbox, available_level, worker_pool
from proceedings.pbtbench.scorer import Scorer

log = logging.getLogger(__name__)


def read_results(path: Path) -> list[dict[str, Any]]:
    """Complete lines of results.jsonl (a trailing line cut short by a kill is ignored)."""
    if not path.exists():
        return []
    lines = []
    for raw in path.read_text().splitlines():
        try:
            lines.append(json.loads(raw))
        except json.JSONDecodeError:
            log.warning("dropping an incomplete line of %s", path)
    return lines


def _append_line(path: Path, record: dict[str, Any]) -> None:
    with open(path, "a") as handle:
        handle.write(json.dumps(record) + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def solve_and_score(agent: Agent, problem: Problem, run: int, out: Path, limits: Limits,
                    unsafe: bool = False, scoring_seed: int | None = None) -> dict[str, Any]:
    """One instance: the agent writes a file (transcript flushed per step), the scorer scores it."""
    transcript = out / "transcripts" / f"{problem.id}.{run}.jsonl"
    transcript.parent.mkdir(parents=True, exist_ok=True)
    transcript.write_text("")

    def log_step(entry: dict[str, Any]) -> None:
        _append_line(transcript, entry)

    result = agent.solve(problem, run, log_step)
    test_path = out / "tests" / f"{problem.id}.{run}.py"
    test_path.parent.mkdir(parents=True, exist_ok=True)
    test_path.write_text(result.code)
    record: dict[str, Any] = {"problem": problem.id, "run": run, "agent": agent.name, "steps": result.steps,
                              "prompt_tokens": result.prompt_tokens, "completion_tokens": result.completion_tokens,
                              "infra_error": result.infra_error}
    if result.infra_error:
        return {**record, "bugs": [], "false_positives": [], "valid": False, "uses_hypothesis": False,
                "runs": 0, "wall_s": 0.0, "recall": None}
    scorer = Scorer(problem, Sandbox(limits, unsafe=unsafe), seed=scoring_seed)
    report = scorer.score(result.code)
    return {**record, "seed": scorer.seed, **{k: v for k, v in report.to_dict().items() if k != "verdicts"}}


def _instance(args: tuple) -> dict[str, Any]:
    return solve_and_score(*args)


def run_benchmark(agent: Agent, problems: list[Problem], out: Path | str, runs: int = 1, resume: bool = False,
                  jobs: int = 1, limits: Limits = Limits(),
                  progress: Callable[[dict[str, Any]], None] | None = None, unsafe: bool = False,
                  scoring_seed: int | None = None) -> dict[str, Any]:
    """Run `agent` on every (problem, run) pair not yet done; returns (and writes) the summary.

    `scoring_seed` replaces each problem's own Hypothesis seed in the scoring runs (reproduce uses
    seeds disjoint from the admission seeds).
    """
    out = Path(out)
    results_path = out / "results.jsonl"
    if results_path.exists() and not resume:
        raise ProceedingsError(f"'{out}' already holds results; pass --resume to continue it or choose a new --out")
    out.mkdir(parents=True, exist_ok=True)
    done = read_results(results_path)
    atomic_write_text(results_path, "".join(json.dumps(r) + "\n" for r in done))  # drop a cut-short line
    finished = {(r["problem"], r["run"]) for r in done}
    todo = [(p, run) for p in problems for run in range(runs) if (p.id, run) not in finished]
    _write_metadata(out, agent, problems, runs, limits)
    arguments = [(agent, p, run, out, limits, unsafe, scoring_seed) for p, run in todo]
    with installed_unchanged([p.library for p in problems], f"the run in {out}"):
        if jobs <= 1:
            for args in arguments:
                _record(results_path, _instance(args), progress)
        else:
            with worker_pool(jobs) as pool:
                for future in as_completed([pool.submit(_instance, a) for a in arguments]):
                    _record(results_path, future.result(), progress)
    return write_summary(out, [p.id for p in problems])


def _record(path: Path, record: dict[str, Any], progress: Callable | None) -> None:
    _append_line(path, record)
    if progress:
        progress(record)


def write_summary(out: Path, problem_ids: list[str] | None = None) -> dict[str, Any]:
    lines = read_results(out / "results.jsonl")
    if problem_ids is not None:
        lines = [r for r in lines if r["problem"] in problem_ids]
    summary = summarise(lines)
    atomic_write_text(out / "summary.json", json.dumps(summary, indent=1) + "\n")
    rows = per_bug_rows(lines)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=["problem", "bug", "level", "runs", "found_in"])
    writer.writeheader()
    writer.writerows(rows)
    atomic_write_text(out / "per_bug.csv", buffer.getvalue())
    return summary


def _write_metadata(out: Path, agent: Agent, problems: list[Problem], runs: int, limits: Limits) -> None:
    versions = {name: metadata.version(name) for name in ("hypothesis", "pytest")}
    versions.update({p.library: p.version for p in problems})
    record = {"agent": agent.describe(), "problems": [p.id for p in problems], "runs": runs,
              "seeds": {p.id: p.seed for p in problems}, "sandbox": available_level(),
              "limits": asdict(limits), "python": platform.python_version(), "versions": versions}
    atomic_write_text(out / "metadata.json", json.dumps(record, indent=1) + "\n")
