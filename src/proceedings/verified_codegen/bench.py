"""`proceedings verified_codegen bench`: the workflows with any agent on any task folders (spec §6.2's
`bench run` and `bench report`), outside the fixed comparison of `reproduce`.

Every finished attempt is appended to `OUT/attempts.jsonl`, so the same command run again resumes; the
settings are kept in `OUT/settings.json` and a rerun with other settings is refused. The report
(`OUT/report.json`, also printed) gives per workflow the solve rate at every budget 1, 2, 4, ... up to B
(one run at B gives them all: the workflows' choices never depend on the budget), mean checker
invocations, model calls, wall and CPU per task, on all tasks and on the difficult subset (tasks whose
top-ranked complete candidate fails, when J ran), and the agent's token counts where it has them.

`workers` > 1 (the issue's "2 checker workers"): the tasks are dealt round-robin to that many worker
processes, each with its own checkers (its own DafnyServer and test host) and agent, each appending to
its own `OUT/attempts.<k>.jsonl`; a task's workflows run back to back in one worker, so they see the
same load. The report adds the invocations per minute over the whole run.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

from proceedings.core.errors import ProceedingsError
from proceedings.core.runtime import atomic_write_text
from proceedings.verified_codegen.agents import make_agent
from proceedings.verified_codegen.experiment import arm_numbers, difficult_tasks, shard_attempts
from proceedings.verified_codegen.tasks import load_tasks
from proceedings.verified_codegen.workflows import WORKFLOWS, Attempt, Settings


def budgets_up_to(budget: int) -> tuple[int, ...]:
    """1, 2, 4, ... below `budget`, then `budget` itself."""
    powers = [2 ** i for i in range(budget.bit_length()) if 2 ** i < budget]
    return (*powers, budget)


def bench(folders: list[Path], out: Path, agent: str = "sketch", workflows: tuple[str, ...] = WORKFLOWS,
          budget: int = 16, backend: str = "", timeout_s: float = 60.0, workers: int = 1) -> dict:
    """Run (or resume) every workflow on every task of `folders`; write and return the report."""
    unknown = [w for w in workflows if w not in WORKFLOWS]
    if unknown or not workflows:
        raise ProceedingsError(f"unknown workflow(s) {', '.join(unknown) or '(none given)'}; choose from: {', '.join(WORKFLOWS)}")
    if budget < 1 or workers < 1:
        raise ProceedingsError(f"--budget and --workers must be at least 1 (got {budget} and {workers})")
    tasks = [task for folder in folders for task in load_tasks(folder)]
    if backend:
        tasks = [task for task in tasks if backend in task.backends]
    if not tasks:
        raise ProceedingsError(f"no task folders (task.json) under {', '.join(map(str, folders))}"
                               + (f" with a {backend} spec" if backend else ""))
    settings = {"agent": agent, "workflows": list(workflows), "budget": budget, "backend": backend,
                "tasks": [task.id for task in tasks], "workers": workers}
    out.mkdir(parents=True, exist_ok=True)
    kept = out / "settings.json"
    if kept.exists() and json.loads(kept.read_text()) != settings:
        raise ProceedingsError(f"{out} holds a bench run with other settings ({kept}); choose another --out")
    atomic_write_text(kept, json.dumps(settings, indent=1))
    shards = [([t.folder for t in tasks[k::workers]], out / (f"attempts.{k}.jsonl" if workers > 1 else "attempts.jsonl"),
               agent, workflows, budget, backend, timeout_s) for k in range(workers)]
    start = time.perf_counter()
    if workers == 1:
        runs = [run_shard(*shards[0])]
    else:
        with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
            runs = list(pool.map(run_shard, *zip(*shards)))
    seconds = time.perf_counter() - start
    attempts = [Attempt(**row) for run in runs for row in run["attempts"]]
    hard = difficult_tasks(attempts)
    checks = sum(run["new_checks"] for run in runs)
    report = {"settings": settings, "difficult_tasks": sorted(hard),
              "tokens": {"prompt": sum(a.prompt_tokens for a in attempts),
                         "completion": sum(a.completion_tokens for a in attempts)},
              "this_run": {"seconds": round(seconds, 2), "new_checks": checks,
                           "checks_per_minute": round(60 * checks / seconds, 1) if checks else 0.0},
              "workflows": {w: arm_numbers([a for a in attempts if a.workflow == w], budgets_up_to(budget), hard)
                            for w in workflows}}
    atomic_write_text(out / "report.json", json.dumps(report, indent=1))
    return report


def run_shard(folders: list[Path], store: Path, agent: str, workflows: tuple[str, ...], budget: int, backend: str,
              timeout_s: float) -> dict:
    """One worker: its tasks with its own checkers and agent (see `experiment.shard_attempts`)."""
    return shard_attempts(folders, make_agent(agent), Settings(checks=budget), f"bench {agent} ({store.name})", store,
                          timeout_s, dafny_server=True, dafny_test_host=True, backends=(backend,) if backend else None,
                          workflows=workflows)
