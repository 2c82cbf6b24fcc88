"""`proceedings rwopd ...`: check two assertions, evaluate, build the teacher, train an arm, sample."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from proceedings.core.errors import ProceedingsError

app = typer.Typer(help="RWOPD: an open SVA property-equivalence checker and reward-weighted on-policy distillation.",
                  no_args_is_help=True, add_completion=False)
console = Console()

# Exit codes of `check` (2 stays the house code for bad input).
EXIT_CODES = {"EQUIVALENT": 0, "EQUIVALENT_BOUNDED": 7, "DIFFERENT": 1, "A_IMPLIES_B": 3, "B_IMPLIES_A": 3, "SYNTAX_ERROR": 4,
              "UNSUPPORTED": 5, "TIMEOUT": 6}


def _parse_signals(text: Optional[str]) -> Optional[dict[str, int]]:
    if not text:
        return None
    signals = {}
    for item in text.split(","):
        name, _, width = item.strip().partition(":")
        if not name.isidentifier() or not (width or "1").isdigit() or int(width or 1) < 1:
            raise ProceedingsError(f"bad signal '{item}'; write --signals name:width,name:width (e.g. a:1,b:4)")
        signals[name] = int(width or 1)
    return signals


def _read(path: Optional[Path], what: str) -> Optional[str]:
    if path is None:
        return None
    if not path.is_file():
        raise ProceedingsError(f"{what} '{path}' does not exist")
    return path.read_text()


@app.command()
def check(
    a: str = typer.Argument(..., help="First assertion (property body or full `assert property (...)`)."),
    b: str = typer.Argument(..., help="Second assertion."),
    signals: Optional[str] = typer.Option(None, help="Declarations name:width,...; default: every name 1 bit."),
    testbench: Optional[Path] = typer.Option(None, help="SystemVerilog module declaring the signals."),
    semantics: str = typer.Option("jasper", help="jasper (FVEval-compatible) or ieee."),
    depth: Optional[int] = typer.Option(None, help="Unrolling depth K (default 2*delay+4, at most 40)."),
    timeout: float = typer.Option(5.0, help="Seconds for the whole check."),
    backend: str = typer.Option("z3", help="z3 (default) or sby (SymbiYosys, safety only)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Are A and B the same property? Exit 0 equivalent, 1 different, 3 one-way, 4 syntax, 5 unsupported,
    6 timeout, 7 equivalent up to the depth only (no proof)."""
    sig, bench = _parse_signals(signals), _read(testbench, "testbench")
    if backend == "sby":
        from proceedings.rwopd.sby import check_with_sby

        outcome = check_with_sby(a, b, signals=sig, testbench=bench, semantics=semantics, timeout_s=max(timeout, 60))
        verdict = outcome["verdict"].value
        console.print_json(json.dumps({k: (v.value if hasattr(v, "value") else v) for k, v in outcome.items()})) \
            if as_json else console.print(f"[bold]{verdict}[/bold] (SymbiYosys, k-induction)")
        raise typer.Exit(EXIT_CODES[verdict])
    if backend != "z3":
        raise ProceedingsError(f"unknown backend '{backend}'; choose z3 or sby")
    from proceedings.rwopd.pec import check_equivalence

    result = check_equivalence(a, b, signals=sig, testbench=bench, semantics=semantics, depth=depth, timeout_s=timeout)
    if as_json:
        console.print_json(json.dumps(result.to_dict()))
    else:
        decided = result.verdict.value in ("EQUIVALENT", "EQUIVALENT_BOUNDED", "DIFFERENT", "A_IMPLIES_B",
                                           "B_IMPLIES_A")
        tag = ("proved, " if result.proved else f"bounded at depth {result.depth}, ") if decided else ""
        console.print(f"[bold]{result.verdict.value}[/bold] ({tag}{result.seconds:.3f} s) {result.message}")
        for line in result.warnings + result.notes:
            console.print(f"  note: {line}")
        if result.counterexample:
            _print_trace(result.counterexample)
    raise typer.Exit(EXIT_CODES[result.verdict.value])


def _print_trace(trace: dict) -> None:
    table = Table(title=f"counterexample ({trace['separates'].replace('_', ' ')}; loop from tick {trace['loop_start']})")
    names = list(trace["steps"][0]) if trace["steps"] else []
    table.add_column("tick")
    for name in names:
        table.add_column(name)
    for tick, step in enumerate(trace["steps"]):
        table.add_row(str(tick), *(str(step[n]) for n in names))
    console.print(table)


@app.command("eval")
def evaluate(
    bench: str = typer.Option("nl2sva-machine", help="nl2sva-human, nl2sva-machine or generated."),
    model: Optional[str] = typer.Option(None, help="Model to sample from (directory, alias or HF id)."),
    samples: Optional[Path] = typer.Option(None, help="JSONL of {id, samples: [...]} to score instead."),
    references: bool = typer.Option(False, help="Audit the references: self-equivalence and perturbations."),
    n: int = typer.Option(5, help="Samples per task."),
    k: str = typer.Option("1,5", help="pass@k values."),
    limit: Optional[int] = typer.Option(None, help="Only the first N tasks."),
    data: Optional[Path] = typer.Option(None, help="Folder with the NL2SVA CSVs (default $RWOPD_NL2SVA_DIR)."),
    workers: int = typer.Option(2, help="PEC worker processes for --references."),
    out: Optional[Path] = typer.Option(None, help="Write the report as JSON here."),
) -> None:
    """pass@k per temporal category for a model's samples, or the reference audit."""
    from proceedings.rwopd.harness import VerdictCache, evaluate_samples

    ks = _parse_ks(k)
    tasks, testbench_of = _tasks(bench, data, limit)
    if references:
        from proceedings.rwopd.audit import audit_references

        report = audit_references(tasks, workers=workers)
    else:
        outputs = _samples_for(tasks, model, samples, n)
        evaluation = evaluate_samples(tasks, outputs, VerdictCache(), testbench_of)
        report = {f"pass@{x}": evaluation.pass_at(x) for x in ks}
        report |= {f"pass@1_{c}": evaluation.pass_at(1, c) for c in ("combinational", "bounded", "unbounded")}
        report |= {"relaxed_pass@1": evaluation.pass_at(1, relaxed=True), "bounded@1": evaluation.bounded_rate(),
                   "syntax@1": evaluation.syntax_rate(),
                   "tasks": len(tasks)}
    console.print_json(json.dumps(report))
    if out:
        out.write_text(json.dumps(report, indent=2))


def _parse_ks(text: str) -> list[int]:
    try:
        ks = [int(x) for x in text.split(",")]
    except ValueError:
        raise ProceedingsError(f"bad --k '{text}'; write integers separated by commas, e.g. 1,5") from None
    if min(ks) < 1:
        raise ProceedingsError(f"bad --k '{text}'; every k must be at least 1")
    return ks


def _tasks(bench: str, data: Optional[Path], limit: Optional[int]):
    if bench in ("nl2sva-human", "nl2sva-machine"):
        from proceedings.rwopd.nl2sva import load_nl2sva

        tasks = load_nl2sva(bench.split("-")[1], data)
        return tasks[:limit], (lambda t: t.testbench)
    if bench == "generated":
        from proceedings.rwopd.grammar import generate_pairs

        return generate_pairs(limit or 60, seed=2000, prefix="heldout"), None
    raise ProceedingsError(f"unknown bench '{bench}'; choose nl2sva-human, nl2sva-machine or generated")


def _samples_for(tasks, model: Optional[str], samples: Optional[Path], n: int) -> list[list[str]]:
    if samples is not None:
        rows = {}
        for number, line in enumerate((_read(samples, "samples file") or "").splitlines(), 1):
            if line.strip():
                try:
                    record = json.loads(line)
                    rows[record["id"]] = list(record["samples"])
                except (ValueError, KeyError, TypeError):
                    raise ProceedingsError(f"{samples}:{number} is not a JSON object {{\"id\": ..., "
                                           f"\"samples\": [...]}}") from None
        missing = [t.id for t in tasks if t.id not in rows]
        if missing:
            raise ProceedingsError(f"samples file lacks {len(missing)} task ids, e.g. {missing[:3]}")
        return [rows[t.id] for t in tasks]
    if model is None:
        raise ProceedingsError("pass --model to sample from, --samples to score a file, or --references")
    from proceedings.core.models import load_causal_lm
    from proceedings.rwopd.policy import sample
    from proceedings.rwopd.prompting import format_prompt

    lm, tok = load_causal_lm(model)
    return sample(lm, tok, [format_prompt(t.prompt) for t in tasks], n, 48, 0.8)


@app.command("prepare-teacher")
def prepare_teacher(
    scale: str = typer.Option("small", help="Which preset's teacher and student to build (tiny|small|paper)."),
    rebuild: bool = typer.Option(False, help="Build again even when cached."),
    gate: bool = typer.Option(True, help="Then measure the gate (warm start and teacher pass@1 on the held-out "
                                         "tasks) and write it to results/rwopd/<scale>/gate.json."),
    seed: int = typer.Option(0),
) -> None:
    """Fine-tune the teacher and warm-start the student on generated pairs; cache both; record the gate."""
    from proceedings.core.results import artifact_dir
    from proceedings.core.runtime import atomic_write_text, check_scale, set_threads
    from proceedings.rwopd.experiment import CONFIGS, measure_gate
    from proceedings.rwopd.teacher import prepared_models

    set_threads()
    cfg = CONFIGS[check_scale(scale)]
    began, cpu0 = time.perf_counter(), time.process_time()
    _, _, _, info = prepared_models(cfg, seed, progress=True, rebuild=rebuild)
    if gate:
        info = measure_gate(cfg, seed) | {"wall_s": round(time.perf_counter() - began, 1),
                                          "cpu_s": round(time.process_time() - cpu0, 1)}
        path = artifact_dir("rwopd", scale) / "gate.json"
        atomic_write_text(path, json.dumps(info, indent=2) + "\n")
        console.print(f"gate {'holds' if info['holds'] else 'FAILS'}: written to {path}")
    console.print_json(json.dumps(info))


@app.command()
def train(
    method: str = typer.Option("rwopd", help="sft, opd, rft or rwopd."),
    scale: str = typer.Option("small", help="Preset for models and arm settings."),
    out: Path = typer.Option(Path("runs/rwopd"), help="Run folder: checkpoint, log, final model."),
    steps: Optional[int] = typer.Option(None, help="Override the preset's step count."),
    resume: bool = typer.Option(True, help="Continue from out/state.pt when present."),
    seed: int = typer.Option(0),
) -> None:
    """Train one arm from the cached teacher and warm student (checkpoints every few steps)."""
    from dataclasses import replace

    from proceedings.core.runtime import check_scale, set_threads
    from proceedings.rwopd.distill import METHODS, train_arm
    from proceedings.rwopd.experiment import CONFIGS
    from proceedings.rwopd.grammar import generate_pairs
    from proceedings.rwopd.harness import VerdictCache
    from proceedings.rwopd.teacher import prepared_models

    if method not in METHODS:  # before any model is loaded or built
        raise ProceedingsError(f"unknown method '{method}'; choose one of: {', '.join(METHODS)}")
    set_threads()
    cfg = CONFIGS[check_scale(scale)]
    arm = replace(cfg.arm, steps=steps or cfg.arm.steps)
    if not resume and (out / "state.pt").exists():
        (out / "state.pt").unlink()
    teacher, student, tok, _ = prepared_models(cfg, seed, progress=True)
    pool = generate_pairs(cfg.train_pairs, seed=seed + 1000, prefix="train")
    out.mkdir(parents=True, exist_ok=True)
    log = train_arm(method, student, teacher, tok, pool, arm, VerdictCache(), seed, out_dir=out, progress=True)
    student.save_pretrained(out / "model")
    tok.save_pretrained(out / "model")
    console.print(f"{method}: {log.generations} generations, final loss {log.losses[-1]:.4f}, "
                  f"{log.tokens_per_second():.1f} trained tokens/s; model in {out / 'model'}")


@app.command("sample")
def sample_cmd(
    spec: str = typer.Argument(..., help="The natural-language specification."),
    model: str = typer.Option(..., help="Model directory (e.g. runs/rwopd/model), alias or HF id."),
    n: int = typer.Option(4, help="Number of samples."),
    temperature: float = typer.Option(0.8),
) -> None:
    """Write SVA for an English specification with a trained model."""
    from proceedings.core.models import load_causal_lm
    from proceedings.rwopd.policy import sample
    from proceedings.rwopd.prompting import extract_sva, format_prompt

    lm, tok = load_causal_lm(model)
    for text in sample(lm, tok, [format_prompt(spec)], n, 48, temperature)[0]:
        console.print(extract_sva(text) or "[red](no SVA)[/red]")


@app.command()
def benchmark(
    workers: int = typer.Option(2, help="PEC worker processes."),
    sby_sample: int = typer.Option(6, help="Machine tasks cross-checked through SymbiYosys."),
    out: Optional[Path] = typer.Option(None, help="Write the numbers as JSON here."),
) -> None:
    """PEC checks/s on NL2SVA (z3) and the SymbiYosys route's time and agreement on a sample."""
    from proceedings.rwopd.speed import run_benchmark

    report = run_benchmark(workers=workers, sby_sample=sby_sample)
    console.print_json(json.dumps(report))
    if out:
        out.write_text(json.dumps(report, indent=2))


@app.command()
def diagnose(
    scale: str = typer.Option("small", help="The preset whose `reproduce` run to read (tiny|small|paper)."),
    seed: int = typer.Option(0),
    entropy: bool = typer.Option(True, help="Also load each arm's final checkpoint and measure its entropy."),
    out: Optional[Path] = typer.Option(None, help="Write the diagnosis as JSON here."),
) -> None:
    """What each arm of a `reproduce` run writes: syntax-error kinds, temporal answers, entropy on references."""
    from proceedings.core.runtime import check_scale, set_threads
    from proceedings.rwopd.diagnose import arm_entropies, stage_samples
    from proceedings.rwopd.experiment import CONFIGS, heldout_tasks, run_folder

    set_threads()
    cfg = CONFIGS[check_scale(scale)]
    folder = run_folder(scale, seed)
    if not folder.is_dir():
        raise ProceedingsError(f"no {scale} run with seed {seed} under {folder.parent}; run `proceedings reproduce "
                               f"rwopd --scale {scale}` first")
    report = {"run": str(folder), "samples": stage_samples(folder)}
    if entropy:
        from proceedings.rwopd.teacher import prepared_models

        teacher, student, tokenizer, _ = prepared_models(cfg, seed)
        report["heldout_reference_entropy"] = arm_entropies(folder, student, teacher, tokenizer,
                                                            heldout_tasks(cfg, seed))
    console.print_json(json.dumps(report))
    if out:
        out.write_text(json.dumps(report, indent=2) + "\n")


@app.command()
def ablate(
    scale: str = typer.Option("small", help="The preset whose `reproduce` run to ablate (tiny|small|paper)."),
    seed: int = typer.Option(0),
    only: Optional[str] = typer.Option(None, help="Comma-separated ablations to run now (default: all): "
                                                   "no-filter, reverse-kl, no-fallback."),
) -> None:
    """The spec's RWOPD ablations, each paired task by task with the run's RWOPD and OPD; resumable
    stages; writes results/rwopd/<scale>/ablations.json (every ablation finished so far)."""
    from proceedings.core.results import artifact_dir
    from proceedings.core.runtime import atomic_write_text, check_scale, set_threads
    from proceedings.rwopd.ablation import ABLATIONS, run_ablations

    set_threads()
    names = tuple(n.strip() for n in only.split(",")) if only else tuple(ABLATIONS)
    began, cpu0 = time.perf_counter(), time.process_time()
    record = run_ablations(check_scale(scale), seed, names, progress=True)
    record["this_call"] = {"wall_s": round(time.perf_counter() - began, 1),
                           "cpu_s": round(time.process_time() - cpu0, 1)}
    path = artifact_dir("rwopd", scale) / ("ablations.json" if seed == 0 else f"ablations-seed{seed}.json")
    atomic_write_text(path, json.dumps(record, indent=2) + "\n")
    for name, ablation in record["ablations"].items():
        paired = ablation["paired"]
        console.print(f"{name}: pass@1 {ablation['eval']['pass@1']:.3f}, syntax@1 {ablation['eval']['syntax@1']:.3f}; "
                      + "; ".join(f"vs {arm} {p['pass@1']['mean']:+.3f} [{p['pass@1']['ci95'][0]:+.3f}, "
                                  f"{p['pass@1']['ci95'][1]:+.3f}]" for arm, p in paired.items()))
    console.print(f"written to {path}")
