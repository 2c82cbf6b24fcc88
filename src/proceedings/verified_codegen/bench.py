"""`proceedings verified_codegen bench`: the workflows with any agent on any task folders (spec §6.2's
`bench run` and `bench report`), outside the fixed comparison of `reproduce`.

Every finished attempt is appended to `OUT/attempts.jsonl`, so the same command run again resumes; the
settings are kept in `OUT/settings.json` and a rerun with other settings is refused. The report
(`OUT/report.json`, also printed) gives per workflow the solve rate at every budget 1, 2, 4, ... up to B
(one run at B gives them all: the workflows' choices never depend on the budget), mean checker
invocations, model calls, wall and CPU per task, on all tasks and on the difficult subset (tasks whose
top-ranked complete candidate fails, when J ran), and the agent's token counts where it has them.
"""

from __future__ import annotations

import json
from pathlib import Path

from proceedings.core.errors import ProceedingsError
from proceedings.verified_codegen.agents import make_agent
from proceedings.verified_codegen.experiment import arm_numbers, checkers_for, difficult_tasks, run_arms
from proceedings.verified_codegen.tasks import load_tasks
from proceedings.verified_codegen.workflows import WORKFLOWS, Settings


def budgets_up_to(budget: int) -> tuple[int, ...]:
    """1, 2, 4, ... below `budget`, then `budget` itself."""
    powers = [2 ** i for i in range(budget.bit_length()) if 2 ** i < budget]
    return (*powers, budget)


def bench(folders: list[Path], out: Path, agent: str = "sketch", workflows: tuple[str, ...] = WORKFLOWS,
          budget: int = 16, backend: str = "", timeout_s: float = 60.0) -> dict:
    """Run (or resume) every workflow on every task of `folders`; write and return the report."""
    unknown = [w for w in workflows if w not in WORKFLOWS]
    if unknown or not workflows:
        raise ProceedingsError(f"unknown workflow(s) {', '.join(unknown) or '(none given)'}; choose from: {', '.join(WORKFLOWS)}")
    if budget < 1:
        raise ProceedingsError(f"--budget must be at least 1 checker invocation (got {budget})")
    tasks = [task for folder in folders for task in load_tasks(folder)]
    if backend:
        tasks = [task for task in tasks if backend in task.backends]
    if not tasks:
        raise ProceedingsError(f"no task folders (task.json) under {', '.join(map(str, folders))}"
                               + (f" with a {backend} spec" if backend else ""))
    settings = {"agent": agent, "workflows": list(workflows), "budget": budget, "backend": backend,
                "tasks": [task.id for task in tasks]}
    out.mkdir(parents=True, exist_ok=True)
    kept = out / "settings.json"
    if kept.exists() and json.loads(kept.read_text()) != settings:
        raise ProceedingsError(f"{out} holds a bench run with other settings ({kept}); choose another --out")
    kept.write_text(json.dumps(settings, indent=1))
    checkers = checkers_for(tasks, timeout_s, dafny_server=True, dafny_test_host=True)
    model = make_agent(agent)
    attempts = run_arms(tasks, model, checkers, Settings(checks=budget), f"bench {agent}", out / "attempts.jsonl",
                        backends=(backend,) if backend else None, workflows=workflows)
    hard = difficult_tasks(attempts)
    report = {"settings": settings, "difficult_tasks": sorted(hard),
              "tokens": {"prompt": getattr(model, "prompt_tokens", 0), "completion": getattr(model, "completion_tokens", 0)},
              "workflows": {w: arm_numbers([a for a in attempts if a.workflow == w], budgets_up_to(budget), hard)
                            for w in workflows}}
    (out / "report.json").write_text(json.dumps(report, indent=1))
    return report
