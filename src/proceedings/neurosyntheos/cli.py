"""`proceedings neurosyntheos ...`: solve LTLt specs with certificates, check saved certificates,
build benchmarks, collect traces, train the predictor, evaluate arms, replay controllers.

`solve` exits 10 REALIZABLE, 20 UNREALIZABLE, 30 UNKNOWN (timeout / bound), 2 bad input.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from proceedings.core.errors import ProceedingsError

app = typer.Typer(help="NeuroSyntheos: LTL-modulo-theories synthesis with verified neural tautology batches.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
console = Console()
EXIT = {"REALIZABLE": 10, "UNREALIZABLE": 20, "UNKNOWN": 30}
BACKENDS = ("bosy", "strix", "ltlsynt")


@app.callback()
def _threads() -> None:
    """torch threads for every verb: $PROCEEDINGS_THREADS or 1 (two threads on the shared machine cost many
    times the CPU of one for these small models)."""
    from proceedings.core.runtime import set_threads
    set_threads()


def _backend(name: str) -> None:
    if name not in BACKENDS:
        raise ProceedingsError(f"unknown backend '{name}'; choose one of: {', '.join(BACKENDS)}")
    if name != "bosy":
        if shutil.which(name) is None:
            raise ProceedingsError(f"backend '{name}' is not on PATH; install it or use --backend bosy")
        raise ProceedingsError(f"backend '{name}' is on PATH but its HOA reader is not implemented; use --backend bosy")


def _predictor(path: str):
    if path == "none":
        return None
    from proceedings.neurosyntheos.model_io import load_predictor
    return load_predictor(path)


@app.command()
def solve(spec: Path = typer.Argument(..., help="Syntheos YAML spec."),
          backend: str = typer.Option("bosy", help="bosy (built in) | strix | ltlsynt (when on PATH)."),
          predictor: str = typer.Option("none", help="A model file from `train`, or none (plain CEGRES)."),
          arm: str = typer.Option("cegres", help="cegres | all-edges (ignored with --predictor)."),
          timeout: float = typer.Option(60.0, help="Budget in CPU seconds of this process, z3 included (README: budgets are CPU seconds)."),
          save: Optional[Path] = typer.Option(None, help="Folder for controller.json, trace.jsonl, report.json.")):
    """Decide realizability with a checked certificate (exit 10/20/30)."""
    from proceedings.neurosyntheos.cegres import ARMS, cegres
    from proceedings.neurosyntheos.certificate import check_certificate
    from proceedings.neurosyntheos.spec import load_spec
    _backend(backend)
    if arm not in ARMS[:2]:
        raise ProceedingsError(f"unknown arm '{arm}'; choose cegres or all-edges")
    if timeout <= 0:
        raise ProceedingsError("--timeout must be > 0 seconds")
    loaded = load_spec(spec)
    model = _predictor(predictor)
    run = cegres(loaded, timeout, "neuro" if model else arm, model)
    problems = check_certificate(loaded, run.certificate) if run.solved else []
    if problems:  # a bug, never a verdict: the certificate failed its independent check
        console.print(f"UNKNOWN  ({run.verdict} claimed, but its certificate fails: {problems[0]})")
        raise typer.Exit(EXIT["UNKNOWN"])
    console.print(f"{run.verdict}  ({run.calls} synthesis calls, {len(run.tautologies)} tautologies, "
                  f"{run.seconds:.2f} s{', ' + run.reason if run.reason else ''})")
    if save is not None:
        run.certificate["spec"] = str(spec.resolve())
        run.save(save)
    raise typer.Exit(EXIT[run.verdict])


@app.command()
def check(spec: Path = typer.Argument(..., help="The Syntheos YAML spec the verdict is about."),
          controller: Path = typer.Argument(..., help="controller.json written by `solve --save`.")):
    """Check a saved verdict's certificate from scratch (exit 0 certified, 1 refused)."""
    from proceedings.neurosyntheos.certificate import check_certificate
    from proceedings.neurosyntheos.spec import load_spec
    try:
        cert = json.loads(Path(controller).read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise ProceedingsError(f"cannot read certificate '{controller}': {err}") from None
    problems = check_certificate(load_spec(spec), cert)
    for problem in problems:
        console.print(problem)
    console.print(f"{cert.get('verdict')}: " + ("certificate checks" if not problems else f"{len(problems)} problems"))
    raise typer.Exit(1 if problems else 0)


@app.command("gen-bench")
def gen_bench(out: Path = typer.Option(..., help="Folder: train/ and test/ YAML specs are written into it."),
              scale: str = typer.Option("small", help="Which preset's split: tiny | small | paper."),
              held_out_family: str = typer.Option("", help="Split by family: test/ holds only this family's "
                                                           "held-out specs, train/ no spec of it.")):
    """Write the parametric families of a preset as Syntheos YAML (ground truth in `expected`): split by
    constants (train small, test larger), or by family with --held-out-family."""
    from proceedings.neurosyntheos.experiment import CONFIGS, build
    from proceedings.neurosyntheos.families import write_yaml
    if scale not in CONFIGS:
        raise ProceedingsError(f"unknown scale '{scale}'; choose one of: {', '.join(CONFIGS)}")
    cfg = CONFIGS[scale]
    train, test = cfg.train, cfg.test
    if held_out_family:
        families = sorted({family for family, _ in cfg.test})
        if held_out_family not in families:
            raise ProceedingsError(f"--held-out-family '{held_out_family}' is not a held-out family of the {scale} "
                                   f"preset; choose one of: {', '.join(families)}")
        train = [e for e in cfg.train if e[0] != held_out_family]
        test = [e for e in cfg.test if e[0] == held_out_family]
    for split, entries in (("train", train), ("test", test)):
        for spec in build(entries):
            write_yaml(spec, out / split)
    console.print(f"{len(train)} training and {len(test)} held-out specs written under {out}")


@app.command("collect-traces")
def collect_traces(bench: Path = typer.Option(..., "--bench-dir", help="Folder of Syntheos YAML specs (e.g. bench/train)."),
                   out: Path = typer.Option(..., help="Folder: one sub-folder per spec (resumable)."),
                   timeout: float = typer.Option(600.0, help="CEGRES budget per spec, seconds.")):
    """Run CEGRES on every spec and save its trace; specs already done are skipped."""
    from proceedings.core.progress import progress_bar
    from proceedings.neurosyntheos.cegres import cegres
    from proceedings.neurosyntheos.families import read_bench
    specs = read_bench(bench)
    for spec in progress_bar(specs, desc="collect-traces", unit="spec"):
        if (out / spec.name / "report.json").exists():
            continue
        cegres(spec, timeout, "cegres").save(out / spec.name)


@app.command()
def train(traces: Path = typer.Option(..., help="Folder written by collect-traces."),
          bench: Path = typer.Option(..., "--bench-dir", help="The specs the traces came from."),
          out: Path = typer.Option(Path("neurosyntheos-model.pt"), help="Model file."),
          steps: int = typer.Option(300, help="GNN training steps."),
          lm_steps: int = typer.Option(200, help="Autoregressive tautology model training steps (0: none)."),
          seed: int = typer.Option(0)):
    """Template library, GNN clause scorer and autoregressive tautology model from saved traces."""
    from proceedings.neurosyntheos.model_io import save_predictor, train_from_folder
    predictor, info = train_from_folder(bench, traces, steps, seed, lm_steps)
    save_predictor(predictor, out)
    console.print(f"model written to {out}: {json.dumps(info)}")


@app.command()
def evaluate(bench: Path = typer.Option(..., "--bench-dir", help="Folder of Syntheos YAML specs (yours or gen-bench's)."),
             arms: str = typer.Option("cegres,all-edges,neuro", help="Comma-separated arms."),
             predictor: str = typer.Option("none", help="Model file (needed by the neuro arm)."),
             timeout: float = typer.Option(60.0, help="Budget per spec and arm, CPU seconds of the solving process."),
             out: Path = typer.Option(Path("results.csv"), help="CSV, one row per spec and arm.")):
    """Run arms on a folder of specs; one CSV row per (spec, arm)."""
    from proceedings.neurosyntheos.cegres import ARMS, cegres
    from proceedings.neurosyntheos.families import read_bench
    chosen = [a.strip() for a in arms.split(",") if a.strip()]
    if not chosen or any(a not in ARMS for a in chosen):
        raise ProceedingsError(f"--arms takes a comma-separated subset of: {', '.join(ARMS)}")
    model = _predictor(predictor)
    if "neuro" in chosen and model is None:
        raise ProceedingsError("the neuro arm needs --predictor MODEL (from `train`)")
    specs = read_bench(bench)
    with out.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["spec", "arm", "verdict", "expected", "calls", "seconds", "neural_s", "tautologies",
                         "injected_template", "injected_lm", "injected_gnn"])
        for spec in specs:
            for arm in chosen:
                run = cegres(spec, timeout, arm, model if arm == "neuro" else None)
                writer.writerow([spec.name, arm, run.verdict, spec.expected, run.calls, round(run.seconds, 3),
                                 round(run.neural_s, 3), len(run.tautologies),
                                 *[run.by_source.get(k, {}).get("injected", 0) for k in ("template", "lm", "gnn")]])
    console.print(f"{len(specs) * len(chosen)} rows written to {out}")


@app.command()
def simulate(controller: Path = typer.Argument(..., help="controller.json written by `solve --save`."),
             steps: int = typer.Option(50, help="Steps to replay."), seed: int = typer.Option(0),
             environment: str = typer.Option("adversarial", help="adversarial (the feasible input least tried "
                                                                 "from the current state) | random")):
    """Replay a REALIZABLE controller against an adversarial (or random) environment, with the theory provider."""
    from proceedings.neurosyntheos.simulate import replay
    report = replay(json.loads(Path(controller).read_text()), steps, seed, environment)
    console.print(f"{report['steps']} steps, {len(report['violations'])} violations, "
                  f"{report['pairs_tried']} (state, input) pairs tried")
    if report["violations"]:
        for v in report["violations"][:5]:
            console.print(v)
        raise typer.Exit(1)


@app.command()
def speed(out: Optional[Path] = typer.Option(None, help="Write the report as JSON here.")):
    """Speed benchmark: CPU s per synthesis call, z3 validity checks/s, GNN ms per step, peak RSS."""
    from proceedings.neurosyntheos.speed import markdown, speed_report
    report = speed_report()
    if out is not None:
        out.write_text(json.dumps(report, indent=1))
    console.print(markdown(report))
