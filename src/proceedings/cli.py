"""The `proceedings` command: list / reproduce / report / doctor, and one sub-command per system.

A system's own verbs (`proceedings pro train ...`) come from `proceedings/<slug>/cli.py`, imported
only when that sub-command is asked for, so `proceedings list` never imports torch and one system's
missing extra never breaks another's.
"""

from __future__ import annotations

import importlib
import importlib.util
import shutil
import sys
from typing import Optional

import click
import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from typer.core import TyperGroup

from proceedings import __version__
from proceedings.core.errors import ProceedingsError
from proceedings.core.runtime import SCALES
from proceedings.decoding_bench import app as bench_app
from proceedings.registry import SYSTEMS, get_system

console = Console()
errors = Console(stderr=True)


def _system_cli_exists(slug: str) -> bool:
    try:
        return importlib.util.find_spec(f"proceedings.{slug}.cli") is not None
    except ModuleNotFoundError:
        return False


class _SystemsGroup(TyperGroup):
    """Adds each implemented system's own Typer app as a lazily imported sub-command."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        systems = [s.slug for s in SYSTEMS if _system_cli_exists(s.slug)]
        return super().list_commands(ctx) + systems

    def get_command(self, ctx: click.Context, name: str) -> Optional[click.Command]:
        command = super().get_command(ctx, name)
        if command is not None or not _system_cli_exists(name):
            return command
        module = importlib.import_module(f"proceedings.{name}.cli")
        command = typer.main.get_command(module.app)
        command.name = name
        return command


app = typer.Typer(
    cls=_SystemsGroup,
    help="Runnable, tested implementations of nineteen NeurIPS 2026 research systems.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        console.print(f"proceedings {__version__}")
        raise typer.Exit()


app.add_typer(bench_app, name="bench")


@app.callback()
def _main(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print the version and exit."),
) -> None:
    pass


@app.command("list")
def list_systems() -> None:
    """The nineteen systems, their status, and their last measured result."""
    from proceedings.core.results import latest_or_problem

    table = Table(title="proceedings: systems")
    for column in ("slug", "status", "title", "last result"):
        table.add_column(column)
    for system in SYSTEMS:
        result, problem = latest_or_problem(system.slug)
        if result is None:
            last = f"unreadable: {problem}" if problem else "not run"
        else:
            last = f"{result.scale}: reproduced={'yes' if result.reproduced else 'no'} ({result.created[:10]})"
        table.add_row(system.slug, system.status, system.title, last)
    console.print(table)


@app.command()
def reproduce(
    slug: str = typer.Argument(..., help="A system slug, or 'all' for every implemented system."),
    scale: str = typer.Option("tiny", help=f"One of: {', '.join(SCALES)}."),
    seed: Optional[int] = typer.Option(None, help="Random seed (default 0)."),
    seeds: Optional[str] = typer.Option(None, help="Several seeds, e.g. 0,1,2: one run each, then the "
                                                   "verdict over their means and 95 % intervals."),
    threads: Optional[int] = typer.Option(None, help="torch threads (default $PROCEEDINGS_THREADS or 1)."),
) -> None:
    """Run a system's headline comparison and save results/<slug>/<scale>.json."""
    from proceedings.core.seeds import parse_seeds

    if seed is not None and seeds is not None:
        raise ProceedingsError("give --seed or --seeds, not both")
    chosen = tuple(parse_seeds(seeds)) if seeds is not None else (seed or 0,)
    systems = [s for s in SYSTEMS if s.implemented] if slug == "all" else [get_system(slug)]
    failed = []
    for system in systems:
        console.rule(f"{system.slug} ({scale})")
        try:
            result = system.reproduce(scale, seeds=chosen, threads=threads)
        except Exception as err:  # `all` goes on to the next system and names the failures at the end
            if slug != "all":
                raise
            if not isinstance(err, ProceedingsError):  # a defect: its traceback is what a bug report needs
                errors.print_exception()
            errors.print(f"[red]{system.slug} failed:[/red] {escape(str(err))}")
            failed.append(system.slug)
            continue
        print_verdict(result, f"in {result.duration_s:.1f} s ({result.cpu_s:.1f} CPU-s)")
    if failed:
        raise ProceedingsError(f"{len(failed)} system(s) failed: {', '.join(failed)}")


@app.command()
def combine(
    slug: str = typer.Argument(..., help="A system slug."),
    sources: list[str] = typer.Argument(..., help="Results folders, each holding one single-seed record of the system."),
    scale: str = typer.Option("tiny", help=f"One of: {', '.join(SCALES)}."),
) -> None:
    """Combine seeds that ran apart into one record, as `reproduce --seeds` would: the verdict over their means."""
    result = get_system(slug).combine(scale, sources)
    print_verdict(result, f"over seeds {', '.join(str(s) for s in result.seeds['seeds'])}")


def print_verdict(result, how: str) -> None:
    """`slug: reproduced <how>, n of m checks`, then one line per check."""
    verdict = "[green]reproduced[/green]" if result.reproduced else "[yellow]not reproduced[/yellow]"
    console.print(f"{result.system}: {verdict} {how}, {sum(result.checks.values())} of {len(result.checks)} checks")
    for rule, holds in result.checks.items():
        console.print(f"  {'✓' if holds else '✗'} {rule}", markup=False, highlight=False)


@app.command()
def report(
    out: str = typer.Option("docs", help="Folder for report.md and report.html."),
) -> None:
    """Write docs/report.md and a self-contained docs/report.html from the saved results."""
    from proceedings.core.report import write_report

    for path in write_report(report_dir=out):
        console.print(f"report written to {path}")


WARM_UP_WORKERS = 2  # the hooks are single-threaded (tiny models trained once, Yosys compiled): one per core


@app.command("warm-up")
def warm_up() -> None:
    """Build every cache that is otherwise built on first use (run by `make setup`; idempotent).

    The de-quantised SmolLM2 (about 20 s once) and each system's own hook, e.g. YoWASP's compiled
    Yosys for rwopd (minutes once), two at a time in separate processes. A warm cache is left as it is.
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    with ProcessPoolExecutor(WARM_UP_WORKERS, mp_context=multiprocessing.get_context("spawn")) as pool:
        for future in as_completed([pool.submit(_warm_one, job) for job in warm_up_jobs()]):
            console.print(future.result())


def warm_up_jobs() -> list[str]:
    """The systems with a warm-up hook, longest first (so the two workers finish together), then "model"."""
    hooks = sorted((system for system in SYSTEMS if system.warm_up and system.implemented),
                   key=lambda system: -system.warm_up_cpu_s)
    return [system.slug for system in hooks] + ["model"]


def _warm_one(job: str) -> str:
    """One warm-up job ("model" or a system's slug), in its own process; returns the line to print."""
    from proceedings.core.models import DEFAULT_MODEL, resolve_model_source
    from proceedings.core.runtime import set_threads, stopwatch

    set_threads()  # $PROCEEDINGS_THREADS (1 under make): two 2-thread jobs on 2 cores ran 3-5x slower, and
    # a cache trained with another thread count differs in its last bits from the one the tests rebuild
    with stopwatch() as elapsed:
        if job == "model":
            resolve_model_source(DEFAULT_MODEL)
            done = f"{DEFAULT_MODEL} ready"
        else:
            done = next(system for system in SYSTEMS if system.slug == job).warm()
    return f"{'model cache' if job == 'model' else job}: {done} ({elapsed.wall_s:.1f} s, {elapsed.cpu_s:.1f} CPU-s)"


@app.command()
def doctor() -> None:
    """What is installed and usable: torch, the cached model, and each system's needs."""
    from proceedings.core.models import ALIASES, cache_root
    from proceedings.core.runtime import thread_count

    import torch

    console.print(f"proceedings {__version__}, Python {sys.version.split()[0]}")
    console.print(f"torch {torch.__version__}: {thread_count()} thread(s) configured, "
                  f"CUDA {'available' if torch.cuda.is_available() else 'not available'}")
    cached = sorted(p.name for p in (cache_root() / "models").glob("*") if (p / ".complete").exists())
    console.print(f"model cache {cache_root()}: {', '.join(cached) or 'empty (first load builds it)'}")
    console.print(f"model aliases: {', '.join(ALIASES)}")
    table = Table(title="systems")
    for column in ("slug", "status", "needs", "tools"):
        table.add_column(column)
    for system in SYSTEMS:
        needs = [f"{m} {'ok' if importlib.util.find_spec(m) else 'MISSING'}" for m in system.needs]
        tools = [f"{t} {'ok' if shutil.which(t) else 'MISSING'}" for t in system.tools]
        table.add_row(system.slug, system.status, ", ".join(needs) or "-", ", ".join(tools) or "-")
    console.print(table)


def main() -> None:
    """Entry point: user errors become one line on stderr and exit code 2."""
    from proceedings.core.progress import quiet_library_bars

    quiet_library_bars()
    try:
        app()
    except ProceedingsError as err:
        errors.print(f"[red]error:[/red] {escape(str(err))}", highlight=False, soft_wrap=True)
        sys.exit(2)


if __name__ == "__main__":
    main()
