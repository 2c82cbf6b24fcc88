"""`proceedings mobta ...`: timetables in, person-days simulated, fine-tunes, task arithmetic, samples, scores.

torch and the model code are imported inside the commands, so mounting this app costs nothing. The
whole comparison runs as `proceedings reproduce mobta --scale tiny|small`.
"""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from proceedings.core.errors import ProceedingsError
from proceedings.mobta.tokenization import FORMATS

app = typer.Typer(help="MobTA: bus-conditioned zero-shot trajectory generation by task arithmetic.", no_args_is_help=True)
console = Console()
CellFormat = Enum("CellFormat", {name: name for name in FORMATS}, type=str)

FORMAT_OPTION = typer.Option(CellFormat.tokens, "--cell-format",
                             help="tokens: '<t16> <c087>' (tokens added to the model); digits: '08:00 r05 c07' "
                                  "in the model's own tokens (no new rows).")
CITY_HELP = "A GTFS zip, 'cairns', 'nyc_subway' (shipped by make setup) or synthetic:<layout>:<seed>[:<size km>]."


@app.callback()
def main() -> None:
    """MobTA's own verbs; `proceedings reproduce mobta --scale tiny|small` runs the comparison."""


def _write_days(path: Path, days) -> None:
    """Trajectories as JSONL: {"uid", "day", "visits": [[slot, cell], ...]}."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"uid": d.uid, "day": d.day, "visits": [list(v) for v in d.visits]}) + "\n"
                            for d in days))


def _read_days(path: Path, city_spec: str | None = None, grid: int = 16):
    """JSONL written by this tool, or a CSV (uid, day, slot_start, lat/lon or cell) of real person-days."""
    from proceedings.mobta.trajectories import Trajectory, load_csv

    if not path.exists():
        raise ProceedingsError(f"trajectory file '{path}' does not exist")
    if path.suffix == ".csv":
        from proceedings.mobta.feeds import load_city

        if city_spec is None:
            raise ProceedingsError(f"'{path}' is a CSV: pass --city so its coordinates can be put on the grid")
        return load_csv(path, load_city(city_spec, grid))
    days = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        try:
            row = json.loads(line)
            days.append(Trajectory(tuple((int(s), int(c)) for s, c in row["visits"]), row.get("uid", 0), row.get("day", 0)))
        except (ValueError, KeyError, TypeError):
            raise ProceedingsError(f"{path.name} line {number}: not a trajectory ({{\"visits\": [[slot, cell], ...]}})") from None
    return days


@app.command("ingest-gtfs")
def ingest_gtfs(feed: str = typer.Argument(..., help=CITY_HELP), grid: int = typer.Option(16, help="Cells per side."),
                out: Path = typer.Option(None, help="Write the bus trajectories here (JSONL) and the city beside it.")) -> None:
    """Read a GTFS feed: stops, routes, trips; its bus trips as (slot, cell) trajectories."""
    import time

    from proceedings.mobta.feeds import load_city

    t0 = time.perf_counter()
    city = load_city(feed, grid)
    stats = city.feed_stats
    console.print(f"{city.name}: {stats['stops']:,} stops, {stats['routes']:,} routes, {stats['trips']:,} trips, "
                  f"{stats['stop_times']:,} timed stop_times; box {city.size_km[0]:.1f} x {city.size_km[1]:.1f} km; "
                  f"{len(city.bus_trips):,} bus trajectories ({time.perf_counter() - t0:.1f} s)")
    if out:
        _write_days(out, city.bus_trips)
        out.with_suffix(".city.json").write_text(json.dumps(
            {"name": city.name, "bbox": [city.south, city.west, city.north, city.east], "grid": grid, **stats}, indent=1))


@app.command()
def simulate(city: str = typer.Option(..., help=CITY_HELP), n: int = typer.Option(1000, help="Person-days."),
             seed: int = typer.Option(0), grid: int = typer.Option(16), out: Path = typer.Option(..., help="CSV to write."),
             behaviour_shift: bool = typer.Option(False, "--behaviour-shift", help="Later departures, fewer work days, longer jumps.")) -> None:
    """Simulated person-days (d-EPR / TimeGeo-lite) on a city's activity fields, as CSV (uid, day, slot_start, cell)."""
    import csv

    from proceedings.mobta.feeds import load_city
    from proceedings.mobta.fields import city_fields
    from proceedings.mobta.simulator import behaviour, person_days

    days = person_days(city_fields(load_city(city, grid), seed), n, seed, behaviour(behaviour_shift))
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["uid", "day", "slot_start", "cell"])
        writer.writerows([d.uid, d.day, slot, cell] for d in days for slot, cell in d.visits)
    console.print(f"{len(days):,} person-days of {len({d.uid for d in days}):,} people -> {out}")


@app.command()
def encode(data: Path = typer.Argument(..., help="Trajectories: JSONL from this tool, or CSV with --city."),
           tag: str = typer.Option("mob", help="bus or mob."), city: str = typer.Option(None, help=CITY_HELP),
           grid: int = typer.Option(16), out: Path = typer.Option(..., help="One token sequence per line."),
           cell_format: CellFormat = FORMAT_OPTION) -> None:
    """Trajectories -> token sequences ("<mob> <t16> <c087> ... <eos>", or "mob 08:00 r05 c07 ... <eos>")."""
    from proceedings.mobta.tokenization import TrajTokenizer

    tokenizer = TrajTokenizer(grid, cell_format=cell_format.value)
    lines = [" ".join(tokenizer.encode(day, tag)) for day in _read_days(data, city, grid)]
    out.write_text("\n".join(lines) + "\n")
    console.print(f"{len(lines):,} sequences -> {out}")


def _read_tokens(path: Path, tokenizer) -> list[list[str]]:
    from proceedings.mobta.tokenization import InvalidSample

    if not path.exists():
        raise ProceedingsError(f"token file '{path}' does not exist; make one with `proceedings mobta encode`")
    sequences = []
    for number, line in enumerate(path.read_text().split("\n"), start=1):
        if line.strip():
            try:
                tokenizer.decode(line.split())
            except InvalidSample as err:
                raise ProceedingsError(f"{path.name} line {number}: {err}") from None
            sequences.append(line.split())
    return sequences


@app.command()
def finetune(data: Path = typer.Argument(..., help="Token sequences from `encode`."),
             out: Path = typer.Option(..., help="Task vector (.safetensors) to write."),
             model: str = typer.Option("tiny", help="'tiny' (random 2-layer Llama) or a causal LM spec (LoRA)."),
             grid: int = typer.Option(16), steps: int = typer.Option(150), batch: int = typer.Option(32),
             lr: float = typer.Option(None, help="Default 3e-3 full (tiny), 2e-4 LoRA."), seed: int = typer.Option(0),
             base_seed: int = typer.Option(0, help="Seed of the base model (tiny weights, new-token rows)."),
             cell_format: CellFormat = FORMAT_OPTION,
             micro_batch: int = typer.Option(None, help="Sequences per forward pass (gradient accumulation); "
                                                        "default the whole batch.")) -> None:
    """Fine-tune the base on one task and save its dense task vector; resumes from OUT.pt if present."""
    from proceedings.mobta.backbone import TINY, backbone
    from proceedings.mobta.finetuning import Recipe
    from proceedings.mobta.finetuning import finetune as train
    from proceedings.mobta.task_vector import TaskVector
    from proceedings.mobta.tokenization import TrajTokenizer

    tokenizer = TrajTokenizer(grid, cell_format=cell_format.value)
    base = backbone(model, tokenizer, base_seed)
    full = model == TINY
    recipe = Recipe(steps=steps, batch=batch, lr=lr or (3e-3 if full else 2e-4), lora_r=None if full else 8, seed=seed)
    sequences = [base.ids.ids(s) for s in _read_tokens(data, tokenizer)]
    trained, log = train(base.model, sequences, recipe, base.pad_id, None if full else base.ids.new_ids or None,
                         checkpoint=out.with_suffix(".pt"), micro_batch=micro_batch)
    meta = base.meta(out.stem)
    vector = TaskVector.between(base.model, trained, meta) if full else TaskVector.from_lora(trained, meta)
    vector.save(out)
    console.print(f"{log.steps} steps, final loss {log.losses[-1]:.3f}, {log.s_per_step:.2f} s/step -> {out} "
                  f"({4 * vector.numel() / 2 ** 20:.1f} MB)")


def _vectors(pairs: list[str]):
    from proceedings.mobta.task_vector import TaskVector

    vectors = {}
    for pair in pairs:
        if "=" not in pair:
            raise ProceedingsError(f"--vec '{pair}': write NAME=PATH, e.g. bus_T=bus_T.safetensors")
        name, path = pair.split("=", 1)
        vectors[name] = TaskVector.load(path)
        vectors[name].meta["name"] = f"{name} ({path})"
    return vectors


@app.command()
def arith(expression: str = typer.Argument(..., help='e.g. "bus_T + mu*(mob_S - bus_S)"'),
          vec: list[str] = typer.Option(..., help="NAME=PATH of a saved task vector (repeat)."),
          mu: str = typer.Option("1.0", help="Comma-separated values of mu."),
          out_dir: Path = typer.Option(Path("."), help="Where the combined vectors go.")) -> None:
    """Exact dense task arithmetic over saved vectors; one output vector per mu."""
    from proceedings.mobta.task_vector import evaluate_expression

    vectors = _vectors(vec)
    try:
        mus = [float(m) for m in mu.split(",")]
    except ValueError:
        raise ProceedingsError(f"--mu '{mu}': give numbers separated by commas") from None
    for value in mus:
        result = evaluate_expression(expression, vectors, {"mu": value})
        path = result.save(out_dir / f"arith_mu{value:g}.safetensors")
        console.print(f"mu = {value:g}: norm {result.norm():.4f} -> {path}")


@app.command()
def generate(vector: Path = typer.Argument(..., help="A task vector (.safetensors)."),
             tag: str = typer.Option("mob"), n: int = typer.Option(200), seed: int = typer.Option(0),
             max_new_tokens: int = typer.Option(None, help="Default: 32 visits' worth of ids (64 for tokens)."),
             out: Path = typer.Option(..., help="JSONL of valid samples.")) -> None:
    """Merge a task vector into its base (rebuilt from its meta) and sample trajectories."""
    from proceedings.mobta.backbone import backbone
    from proceedings.mobta.generation import sample
    from proceedings.mobta.task_vector import TaskVector
    from proceedings.mobta.token_ids import visit_length
    from proceedings.mobta.tokenization import TrajTokenizer

    tv = TaskVector.load(vector)
    tokenizer = TrajTokenizer(tv.meta["grid"], tv.meta["slot_minutes"], tv.meta["cell_format"])
    base = backbone(tv.meta["base"], tokenizer, tv.meta.get("base_seed", 0))
    limit = max_new_tokens or 32 * visit_length(base.ids, tokenizer)
    samples = sample(tv.apply_to(base.model), tokenizer, base.ids, tag, n, seed, limit)
    _write_days(out, samples.valid)
    console.print(f"{len(samples.valid)}/{samples.total} valid ({samples.validity:.1%}); invalid: "
                  f"{dict(samples.invalid.most_common(3)) or 'none'} -> {out}")


@app.command()
def evaluate(generated: Path = typer.Argument(..., help="Generated person-days (JSONL)."),
             real: Path = typer.Option(..., help="Real person-days (CSV or JSONL)."),
             city: str = typer.Option(..., help="The target city (fixes the bins). " + CITY_HELP),
             grid: int = typer.Option(16)) -> None:
    """JSD of Distance, Radius, Duration, Location frequency (mean = headline) and DailyLoc."""
    from proceedings.mobta.feeds import load_city
    from proceedings.mobta.metrics import Bins, evaluate as score, real_floor

    target = load_city(city, grid)
    bins = Bins.for_city(target.cell_centres_km())
    real_days = _read_days(real, city, grid)
    result = score(_read_days(generated, city, grid), real_days, bins)
    table = Table("metric", "JSD (base 2)")
    for metric, value in result.items():
        table.add_row(metric, f"{value:.4f}")
    table.add_row("real-vs-real floor (mean)", f"{real_floor(real_days, bins):.4f}")
    console.print(table)


@app.command()
def diag(a: Path = typer.Argument(..., help="Task vector (e.g. mob_S - bus_S)."),
         b: Path = typer.Argument(..., help="Task vector (e.g. mob_T - bus_T).")) -> None:
    """Per-parameter cosine and norm ratio of two task vectors (spec §2.4), largest deltas first."""
    from proceedings.mobta.diagnostics import compare

    rows = compare(_vectors([f"a={a}"])["a"], _vectors([f"b={b}"])["b"])
    table = Table("parameter", "cosine", "|a| / |b|")
    for name, cosine, ratio in rows[:20]:
        table.add_row(name, f"{cosine:+.3f}", f"{ratio:.3f}")
    console.print(table)
