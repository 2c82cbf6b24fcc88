"""`proceedings pbtbench ...`: the benchmark's verbs (spec 6.2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(help="PBT-Bench: property-based-testing problems with injected semantic bugs.",
                  no_args_is_help=True)
console = Console()


def _bench(problems_dir: Optional[Path]):
    from proceedings.pbtbench.problem import PROBLEMS_DIR, Benchmark

    return Benchmark.load(problems_dir or PROBLEMS_DIR)


PROBLEMS_OPTION = typer.Option(None, "--problems-dir", help="A folder of problem folders (default: the shipped ones).")
UNSAFE_OPTION = typer.Option(False, "--unsafe-no-sandbox", help="Run tests without file isolation where no "
                             "namespaces exist (only for files you trust).")


def _optional(value: str, kind: type, option: str):
    """'none' -> None (the option is left out of requests), else the value as `kind`."""
    if value.strip().lower() == "none":
        return None
    try:
        return kind(value)
    except ValueError:
        from proceedings.core.errors import ProceedingsError

        raise ProceedingsError(f"{option} must be a {kind.__name__} or 'none' (got '{value}')") from None


def _token_field(value: str) -> str:
    from proceedings.core.errors import ProceedingsError

    if value not in ("max_tokens", "max_completion_tokens"):
        raise ProceedingsError(f"--token-field must be max_tokens or max_completion_tokens (got '{value}')")
    return value


@app.command("list")
def list_problems(problems_dir: Optional[Path] = PROBLEMS_OPTION) -> None:
    """The problems: library, bugs by level, admitted bugs."""
    table = Table(title="PBT-Bench problems")
    for column in ("id", "library", "bugs", "L1/L2/L3", "admitted"):
        table.add_column(column)
    from proceedings.core.errors import ProceedingsError

    for p in _bench(problems_dir):
        levels = "/".join(str(sum(b.level == lv for b in p.bugs)) for lv in ("L1", "L2", "L3"))
        try:
            admitted = str(len(p.admitted_bugs()))
        except ProceedingsError:
            admitted = "not validated" if p.lock() is None else "stale: run validate"
        table.add_row(p.id, f"{p.library} {p.version}", str(len(p.bugs)), levels, admitted)
    console.print(table)


@app.command()
def show(problem_id: str, problems_dir: Optional[Path] = PROBLEMS_OPTION) -> None:
    """One problem's metadata and measured gates (the hidden parts included: for authors)."""
    p = _bench(problems_dir)[problem_id]
    console.print(f"[bold]{p.id}[/bold]: {p.title} ({p.library}=={p.version})")
    lock = p.lock() or {"bugs": {}}
    for b in p.bugs:
        record = lock["bugs"].get(b.id, {})
        gates = record.get("gates", {})
        console.print(f"  {b.id} [{b.level}] admitted={record.get('admitted')} "
                      f"reference={record.get('reference', {}).get('rate')} default={record.get('default', {}).get('rate')}"
                      f" failed gates={[g for g, ok in gates.items() if not ok]}")
        console.print(f"    {b.location}: {b.trigger}")


@app.command()
def env(problems_dir: Optional[Path] = PROBLEMS_OPTION) -> None:
    """Check libraries (pinned versions, pure or C accelerator switched off) and the sandbox level."""
    from proceedings.core.errors import ProceedingsError
    from proceedings.pbtbench.overlay import compiled_modules
    from proceedings.pbtbench.pytest_run import run_pytest
    from proceedings.pbtbench.sandbox import Sandbox, available_level, target_for

    level = available_level()
    console.print(f"sandbox level: [bold]{level}[/bold]" + ("" if level != "process-group" else
                  " (no namespaces: network blocked by a socket guard only; see README)"))
    sandbox, failures = Sandbox(unsafe=True), 0  # a trivial test of our own
    for p in _bench(problems_dir):
        try:
            report = run_pytest(sandbox, "env_test.py", "def test_import():\n    pass\n", target_for(p), p.seed)
            ok = report.verdicts.get("test_import") == "passed"
            detail = report.output.strip().splitlines()[-1] if not ok and report.output.strip() else ""
        except ProceedingsError as err:
            ok, detail = False, str(err)
        kind = "pure" if not compiled_modules(p) else f"fallback via {', '.join(f'{k}={v}' for k, v in p.env.items())}"
        failures += not ok
        console.print(f"  {'ok ' if ok else 'BAD'} {p.id}: {p.library}=={p.version} ({kind}) {detail}")
    if failures:
        raise ProceedingsError(f"{failures} problem(s) cannot run here; see above")


@app.command()
def validate(problem_ids: List[str] = typer.Argument(None, help="Problem ids (default: all)."),
             runs: int = typer.Option(20, help="Runs per trigger-rate cell (seeds 1000..)."),
             examples: int = typer.Option(200, help="max_examples per run."),
             jobs: int = typer.Option(1, help="Parallel sandboxed probes."),
             problems_dir: Optional[Path] = PROBLEMS_OPTION) -> None:
    """Measure every admission gate and write each problem's bugs.lock.json."""
    from proceedings.pbtbench.trigger import validate as validate_problem

    bench = _bench(problems_dir)
    for p in [bench[i] for i in problem_ids] if problem_ids else bench:  # a lock covers every bug of a problem
        record = validate_problem(p, runs=runs, examples=examples, jobs=jobs)
        admitted = sum(b["admitted"] for b in record["bugs"].values())
        console.print(f"{p.id}: {admitted}/{len(p.bugs)} bugs admitted in {record['wall_s']:.0f} s")
        for bug_id, b in record["bugs"].items():
            failed = [g for g, ok in b["gates"].items() if not ok]
            console.print(f"  {bug_id} [{b['level']}] " + ("admitted" if not failed else f"REJECTED: {failed}"))


@app.command()
def workspace(problem_id: str, target: Path, problems_dir: Optional[Path] = PROBLEMS_OPTION) -> None:
    """Materialise the agent's view of a problem (docs, example tests, library source) in TARGET."""
    from proceedings.pbtbench.workspace import Workspace

    Workspace(_bench(problems_dir)[problem_id]).materialise(target)
    console.print(f"workspace written to {target}")


@app.command()
def run(agent: str = typer.Option(..., help="reference | default-strategy | empty | cheat | openai"),
        regime: str = typer.Option("pbt", help="Prompt regime for LLM agents: baseline | pbt."),
        model: str = typer.Option("smollm2-135m", help="Model name sent to the endpoint."),
        base_url: str = typer.Option("http://127.0.0.1:8000/v1", help="OpenAI-compatible endpoint."),
        api_key_env: str = typer.Option("OPENAI_API_KEY", help="Environment variable holding the API key."),
        max_steps: int = typer.Option(12, help="Agent steps per problem."),
        max_tokens: str = typer.Option("none", help="Tokens per reply, or 'none' to leave it to the endpoint."),
        temperature: str = typer.Option("none", help="Sampling temperature, or 'none' (the endpoint's default, "
                                         "usually 1: runs differ, as the paper's three runs do)."),
        token_field: str = typer.Option("max_tokens", help="max_tokens | max_completion_tokens (OpenAI "
                                         "reasoning models)."),
        reasoning_effort: str = typer.Option("none", help="low | medium | high for reasoning models, or 'none'."),
        runs: int = typer.Option(1, help="Independent runs per problem."),
        problems: List[str] = typer.Option(None, "--problem", help="Problem ids, or problem/bug for only that bug (repeatable; default all)."),
        out: Path = typer.Option(..., help="Run folder (results.jsonl, transcripts/, tests/, summary.json)."),
        resume: bool = typer.Option(False, help="Continue a run folder, skipping finished instances."),
        jobs: int = typer.Option(1, help="Instances in parallel (processes)."),
        timeout: float = typer.Option(60.0, help="Wall-clock seconds per sandboxed pytest run."),
        unsafe_no_sandbox: bool = UNSAFE_OPTION,
        problems_dir: Optional[Path] = PROBLEMS_OPTION) -> None:
    """Run an agent over problems and score every submitted file Fail->Pass."""
    from proceedings.pbtbench.agents import make_agent
    from proceedings.pbtbench.agents.chat import Sampling
    from proceedings.pbtbench.runner import run_benchmark
    from proceedings.pbtbench.sandbox import Limits

    limits = Limits(wall_s=timeout, cpu_s=int(timeout))
    sampling = Sampling(temperature=_optional(temperature, float, "--temperature"),
                        max_tokens=_optional(max_tokens, int, "--max-tokens"), token_field=_token_field(token_field),
                        reasoning_effort=_optional(reasoning_effort, str, "--reasoning-effort"))
    options = dict(base_url=base_url, model=model, regime=regime, api_key_env=api_key_env,
                   max_steps=max_steps, sampling=sampling, limits=limits,
                   unsafe=unsafe_no_sandbox) if agent == "openai" else {}
    chosen = make_agent(agent, **options)
    selected = _bench(problems_dir).select(problems)

    def progress(record: dict) -> None:
        found = sum(b["found"] for b in record["bugs"])
        console.print(f"  {record['problem']} run {record['run']}: {found}/{len(record['bugs'])} bugs found"
                      + (f" [red]infra error: {record['infra_error']}[/red]" if record["infra_error"] else ""))

    summary = run_benchmark(chosen, selected, out, runs=runs, resume=resume, jobs=jobs, limits=limits,
                            progress=progress, unsafe=unsafe_no_sandbox)
    console.print_json(json.dumps(summary))


@app.command()
def score(problem_id: str, test_file: Path, timeout: float = typer.Option(60.0),
          seed: Optional[int] = typer.Option(None, help="Hypothesis seed (default: the problem's)."),
          unsafe_no_sandbox: bool = UNSAFE_OPTION, problems_dir: Optional[Path] = PROBLEMS_OPTION) -> None:
    """Score one test file against a problem's admitted bugs (per-function Fail->Pass)."""
    from proceedings.core.errors import ProceedingsError
    from proceedings.pbtbench.sandbox import Limits, Sandbox
    from proceedings.pbtbench.scorer import Scorer

    if not test_file.is_file():
        raise ProceedingsError(f"test file '{test_file}' does not exist")
    sandbox = Sandbox(Limits(wall_s=timeout, cpu_s=int(timeout)), unsafe=unsafe_no_sandbox)
    report = Scorer(_bench(problems_dir)[problem_id], sandbox, seed=seed).score(test_file.read_text())
    for b in report.bugs:
        console.print(f"  {b.bug} [{b.level}]: " + (f"found ({b.rule}) by {', '.join(b.functions)}" if b.found
                                                    else "not found"))
    console.print(f"recall {report.recall:.3f}; false positives: {report.false_positives or 'none'}; "
                  f"{report.runs} sandboxed runs in {report.wall_s:.1f} s" + (f"; {report.reason}" if report.reason else ""))


@app.command()
def compare(run_dirs: List[Path] = typer.Argument(..., help="Run folders written by `run` (one per regime/model)."),
            name: List[str] = typer.Option(None, "--name", help="A label per folder (repeatable, in order)."),
            out: Optional[Path] = typer.Option(None, help="Write the rows as JSON here.")) -> None:
    """Recall per regime (or model) with 95 % bootstrap intervals over problems, paired to the first."""
    from proceedings.pbtbench.compare import compare as compare_runs
    from proceedings.pbtbench.compare import rows_json

    rows = compare_runs(run_dirs, name or None)
    table = Table(title=f"Bug recall on the {rows[0].problems} problems every folder scored (10,000 bootstrap resamples)")
    for column in ("configuration", "recall", "95 % interval", f"minus {rows[0].name}", "95 % interval",
                   "instances", "infra errors"):
        table.add_column(column)
    for row in rows:
        table.add_row(row.name, f"{row.recall:.3f}", f"[{row.interval[0]:.3f}, {row.interval[1]:.3f}]",
                      f"{row.difference:+.3f}", f"[{row.difference_interval[0]:+.3f}, {row.difference_interval[1]:+.3f}]",
                      str(row.instances), str(row.infra_errors))
    console.print(table)
    if out:
        out.write_text(rows_json(rows) + "\n")


@app.command("serve-local")
def serve_local(model: str = typer.Option("smollm2-135m", help="Alias, local directory, .gguf or HF id."),
                host: str = typer.Option("127.0.0.1", help="Loopback address to bind."),
                port: int = typer.Option(8000)) -> None:
    """Serve a local model as an OpenAI-compatible endpoint on loopback (Ctrl-C to stop)."""
    from proceedings.core.models import load_causal_lm
    from proceedings.pbtbench.agents.local_server import ChatModel, make_server

    lm, tokenizer = load_causal_lm(model)
    server = make_server(ChatModel(lm, tokenizer, model), host, port)
    console.print(f"serving {model} at http://{host}:{server.server_port}/v1 (Ctrl-C to stop)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        server.shutdown()


@app.command()
def bench(problem_id: str = typer.Argument("cachetools-caches", help="Problem whose library the throughput runs use."),
          runs_dir: Optional[Path] = typer.Option(None, help="A folder of agent run folders (e.g. "
                                                  "results/pbtbench/small/runs) for seconds per scored problem."),
          out: Optional[Path] = typer.Option(None, help="Write the measurements as JSON here."),
          problems_dir: Optional[Path] = PROBLEMS_OPTION) -> None:
    """Speed: sandboxed runs/s per level, seconds per scored problem per agent, validation time per bug."""
    from proceedings.pbtbench.speed import measure_speed

    result = measure_speed(_bench(problems_dir), problem_id, runs_dir)
    console.print_json(json.dumps(result))
    if out:
        out.write_text(json.dumps(result, indent=1) + "\n")
