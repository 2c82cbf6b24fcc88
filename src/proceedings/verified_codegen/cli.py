"""`proceedings verified_codegen ...`: doctor, check, solve, bench, validate, convert, build-commit0.

`proceedings reproduce verified_codegen --scale tiny|small` runs the J/S/P comparison.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from proceedings.core.errors import ProceedingsError

app = typer.Typer(help="Verified code generation: plan-first vs joint vs sequential, judged by Coq and Dafny.",
                  no_args_is_help=True)
console = Console()


@app.callback()
def main() -> None:
    """Verified codegen's own verbs; `proceedings reproduce verified_codegen` runs the comparison."""


@app.command()
def doctor() -> None:
    """Which checkers exist, and their versions (Coq, Dafny + Z3, Lean)."""
    from proceedings.verified_codegen.checkers import CHECKERS

    import shutil
    import subprocess

    for backend, cls in CHECKERS.items():
        checker = cls()
        line = f"{backend}: {checker.version()} ({checker.path})" if checker.available else f"{backend}: absent — {checker.missing()}"
        if backend == "dafny" and shutil.which("z3"):
            line += ", " + subprocess.run(["z3", "--version"], capture_output=True, text=True).stdout.strip()
        console.print(line)


@app.command()
def check(task: Path = typer.Argument(..., help="Task folder (task.json + spec files)."),
          solution: Path = typer.Argument(..., help="A whole spec file with the editable regions filled in."),
          backend: str = typer.Option("", help="coq, dafny or lean (default: from the solution's suffix)."),
          timeout: float = typer.Option(60.0, help="Wall limit per checker call, seconds.")) -> None:
    """Check one solution file against a task: region/tamper gates, cheat scan, checker, fresh re-check."""
    from proceedings.verified_codegen.checkers import get_checker
    from proceedings.verified_codegen.cheats import regions_of
    from proceedings.verified_codegen.tasks import SUFFIX, load_task

    loaded = load_task(task)
    if not solution.is_file():
        raise ProceedingsError(f"solution file '{solution}' does not exist")
    backend = backend or next((b for b, s in SUFFIX.items() if solution.suffix == s), "")
    checker = get_checker(backend, timeout_s=timeout)
    regions, why = regions_of(loaded.spec(backend), solution.read_text())
    verdict = checker.verify(loaded, regions, fresh=True) if not why else None
    status, reason = (verdict.status, verdict.reason) if verdict else ("rejected", why)
    console.print(f"{loaded.id} [{backend}]: {status}" + (f" — {reason}" if reason else ""))
    raise typer.Exit(0 if status == "verified" else 1)


@app.command()
def solve(task: Path = typer.Argument(..., help="Task folder."),
          workflow: str = typer.Option("planfirst", help="joint, sequential or planfirst."),
          agent: str = typer.Option("sketch", help="oracle, sketch, local (SmolLM2-135M, greedy) or openai ($VCG_OPENAI_BASE_URL, $VCG_OPENAI_MODEL)."),
          backend: str = typer.Option("", help="Backend (default: the task's first)."),
          budget: int = typer.Option(16, help="B: checker invocations (verification, scaffold and test runs).")) -> None:
    """Run one workflow with one agent on one task; prints the trace and the final verdict."""
    from proceedings.verified_codegen.agents import make_agent
    from proceedings.verified_codegen.checkers import get_checker
    from proceedings.verified_codegen.tasks import load_task
    from proceedings.verified_codegen.workflows import WORKFLOWS, Settings
    from proceedings.verified_codegen.workflows import solve as run

    if workflow not in WORKFLOWS:
        raise ProceedingsError(f"unknown workflow '{workflow}'; choose one of: {', '.join(WORKFLOWS)}")
    loaded = load_task(task)
    checker = get_checker(backend or loaded.backends[0])
    if not checker.available:
        raise ProceedingsError(checker.missing())
    attempt = run(loaded, workflow, make_agent(agent), checker, Settings(checks=budget))
    for step in attempt.trace:
        console.print(step)
    console.print(f"{loaded.id} {workflow}/{agent}: {'SOLVED' if attempt.solved else 'not solved'} "
                  f"({attempt.calls} calls, {attempt.checks} checks, {attempt.wall_s:.1f} s; re-check: {attempt.recheck or '-'})")


@app.command()
def bench(folders: list[Path] = typer.Argument(..., help="Task folders: each holds task folders (task.json + spec files)."),
          out: Path = typer.Option(..., help="Run folder: attempts.jsonl (a rerun resumes), settings.json, report.json."),
          agent: str = typer.Option("sketch", help="oracle, sketch, local or openai."),
          workflows: str = typer.Option("joint,sequential,planfirst", help="Comma-separated workflows."),
          budget: int = typer.Option(16, help="B_max: checker invocations per task; the report gives every B up to it."),
          backend: str = typer.Option("", help="Only this backend's specs (default: every backend a task has)."),
          workers: int = typer.Option(1, help="Worker processes, each with its own checkers (tasks dealt round-robin).")) -> None:
    """Every workflow with one agent on every task of the folders; resumable; solve rate by budget per workflow."""
    from proceedings.verified_codegen.bench import bench as run

    report = run(folders, out, agent, tuple(w.strip() for w in workflows.split(",") if w.strip()), budget, backend,
                 workers=workers)
    for workflow, numbers in report["workflows"].items():
        curve = ", ".join(f"B={key[12:]}: {value:.2f}" for key, value in numbers.items()
                          if key.startswith("solve_rate_b") and key[12:].isdigit())
        console.print(f"{workflow}: {curve}; {numbers['mean_checks']:.1f} checks, {numbers['mean_calls']:.1f} calls, "
                      f"{numbers['mean_wall_s']:.2f} s wall a task")
    console.print(f"difficult subset: {len(report['difficult_tasks'])} task(s); this run: "
                  f"{report['this_run']['new_checks']} checker invocations in {report['this_run']['seconds']:.1f} s "
                  f"({report['this_run']['checks_per_minute']:.0f} a minute); report: {out / 'report.json'}")


@app.command()
def validate(root: Path = typer.Argument(None, help="Task directory (default: the shipped tasks and commit0-mini).")) -> None:
    """Ground truth: every reference verifies (fresh process), passes its tests and needs its proof; a
    commit0-mini reference agrees with the library on every recorded input."""
    from proceedings.verified_codegen.commit0 import COMMIT0
    from proceedings.verified_codegen.tasks import SHIPPED
    from proceedings.verified_codegen.validate import validate_tasks

    problems = [line for folder in ([root] if root else [SHIPPED, COMMIT0])
                for line in validate_tasks(folder, report=console.print)]
    if problems:
        for line in problems:
            console.print(f"[red]{line}[/red]")
        raise typer.Exit(1)


@app.command("build-commit0")
def build_commit0(out: Path = typer.Option(None, help="Where the task folders go (default: the shipped commit0-mini)."),
                  library: list[str] = typer.Option(None, help="Only these libraries (repeatable; default: all)."),
                  examples: int = typer.Option(40, help="Hypothesis examples drawn per API.")) -> None:
    """Build commit0-mini: descriptions from the installed libraries' docs, tests recorded by running them on
    Hypothesis inputs (a few visible, the rest hidden), relations checked on the library; spec stubs for new APIs."""
    from proceedings.verified_codegen.commit0 import COMMIT0, LIBRARIES, build

    written = build(out or COMMIT0, tuple(library) if library else LIBRARIES, examples)
    console.print(f"{len(written)} commit0-mini tasks written to {out or COMMIT0}: {', '.join(written)}")


@app.command()
def convert(benchmark: str = typer.Argument(..., help="algoveri (its Dafny track, Dafny 4 -> 2.3)."),
            source: Path = typer.Argument(..., help="Your AlgoVeri copy (holding algoveri_data/)."),
            destination: Path = typer.Argument(..., help="Folder for the down-ported spec files.")) -> None:
    """Down-port AlgoVeri's Dafny-4 specs to Dafny 2.3; reports what cannot be converted and why."""
    from collections import Counter

    from proceedings.verified_codegen.benchmarks import load_algoveri

    if benchmark != "algoveri":
        raise ProceedingsError(f"unknown benchmark '{benchmark}' for convert; only algoveri has a Dafny-4 track")
    _, conversions = load_algoveri(source)
    for conversion in conversions:
        if not conversion.unsupported:
            out = destination / conversion.name / "dafny_spec.dfy"
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(conversion.text)
    reasons = Counter(reason for c in conversions for reason in c.unsupported)
    done = sum(not c.unsupported for c in conversions)
    console.print(f"{done} of {len(conversions)} converted into {destination}; "
                  f"{len(conversions) - done} unsupported: " + ", ".join(f"{n} x {r}" for r, n in reasons.most_common()))
