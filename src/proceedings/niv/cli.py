"""`proceedings niv ...`: prepare data, train, evaluate, convert a static font, validate, render.

fontTools, torch and the model are imported inside the commands, so mounting this app costs nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from proceedings.core.errors import ProceedingsError

app = typer.Typer(help="NIV: static TrueType font -> validated variable font by predicted point displacements.",
                  no_args_is_help=True)
console = Console()


def load_predictor(model: Optional[str]):
    """(predictor, fallback baseline) for `--model DIR|algorithmic`; default: the last `small` run's model."""
    from proceedings.niv.baselines import AlgorithmicBaseline, fitted_baseline
    from proceedings.niv.convert import AlgorithmicPredictor, ModelPredictor

    if model == "algorithmic":
        baseline = fitted_baseline()
        return AlgorithmicPredictor(baseline), baseline
    from proceedings.niv.model import default_model_dir

    directory = Path(model) if model else default_model_dir()
    if model is None and not (directory / "config.json").is_file():
        raise ProceedingsError(f"no trained NIV model at '{directory}'; run `proceedings reproduce niv --scale small` "
                               "or pass --model DIR|algorithmic")
    from proceedings.niv.model import NIV

    niv = NIV.from_pretrained(directory)
    baseline_file = directory / "algorithmic.json"
    baseline = AlgorithmicBaseline.load(baseline_file) if baseline_file.is_file() else fitted_baseline()
    return ModelPredictor(niv), baseline


@app.command("prepare-data")
def prepare_data(
    split: str = typer.Option("tiny", help="A committed family split: tiny, small, handwriting."),
    charset: str = typer.Option("ascii", help="ascii, latin or all."),
    max_points: int = typer.Option(504, help="Glyphs with more points are left out."),
) -> None:
    """Extract (and cache) the variation tuples of a split's families; prints counts per family."""
    from proceedings.core.runtime import stopwatch
    from proceedings.niv.data import build_dataset, split as family_split

    families = family_split(split)
    for part in ("train", "test"):
        with stopwatch() as clock:
            data = build_dataset(families[part], max_points, charset)
        per_family = {f: sum(len(g.corners) for g in data.glyphs if g.family == f) for f in data.families()}
        console.print(f"{part}: {data.tuples()} tuples from {len(data.glyphs)} glyphs in {clock.wall_s:.1f} s "
                      f"({json.dumps(per_family)})")


@app.command()
def convert(
    font: Path = typer.Argument(..., help="A static TrueType font (.ttf)."),
    out: Path = typer.Argument(..., help="Where to write the variable font (never the input)."),
    axes: str = typer.Option("wght,wdth", help="Axes, e.g. wght,wdth or wght=100:400:900,wdth=75:100:100."),
    model: Optional[str] = typer.Option(None, help="A NIV model folder, or 'algorithmic'; default: the last small run's."),
    max_points: int = typer.Option(504, help="Glyphs with more points stay static (with a warning)."),
    waterfall: bool = typer.Option(True, help="Also write OUT.png, a waterfall of the converted font."),
    convert_quadratic: bool = typer.Option(False, help="Accept CFF outlines, approximated by quadratics (cu2qu)."),
    repair_passes: Optional[int] = typer.Option(None, help="Most contour-smoothing passes tried on a refused corner "
                                                           "before the algorithmic fallback; default: small's."),
) -> None:
    """Convert a static font to a variable font; OUT appears only if it passes `validate`."""
    from proceedings.niv.convert import convert as run
    from proceedings.niv.experiment import CONFIGS

    predictor, fallback = load_predictor(model)
    passes = CONFIGS["small"].repair_passes if repair_passes is None else repair_passes
    result = run(font, out, axes, predictor, fallback, max_points, convert_quadratic, passes)
    console.print(f"wrote {out}: {result.glyphs} glyphs varied, {len(result.over_limit)} static (over "
                  f"{result.max_points} points), {len(result.repaired)} repaired by contour smoothing, "
                  f"{len(result.fallback)} on the algorithmic fallback "
                  f"({', '.join(f'{k}: {v}' for k, v in result.fallback_checks.items()) or 'none refused'}; "
                  f"{result.clamped} fallback corners clamped); "
                  + ", ".join(f"{k} {v:.2f} s" for k, v in result.seconds.items()))
    if waterfall:
        from proceedings.niv.render import waterfall as draw

        console.print(f"waterfall: {draw(out, out.with_suffix('.png'))}")


@app.command()
def validate(font: Path = typer.Argument(..., help="A variable font to check.")) -> None:
    """OTS, reload, instancer, FreeType and HarfBuzz renders; exit 1 when a check fails."""
    from proceedings.niv.validate import validate as run

    if not font.is_file():
        raise ProceedingsError(f"'{font}' does not exist")
    report = run(font)
    console.print(f"axes {report.axes}, {report.instances} named instances, STAT {'yes' if report.stat else 'no'}")
    for name, ok in report.checks.items():
        console.print(f"  {'ok  ' if ok else 'FAIL'} {name} {report.details.get(name, '')}")
    if not report.ok:
        raise typer.Exit(1)


@app.command()
def train(
    preset: str = typer.Option("tiny", help="tiny, small or paper: data, model size and schedule."),
    conditioning: str = typer.Option("property", help="'property' (Property Embedding) or 'addall' (ablation)."),
    out: Optional[Path] = typer.Option(None, help="Model folder; an interrupted run there resumes."),
    steps: Optional[int] = typer.Option(None, help="Override the preset's number of steps."),
    device: Optional[str] = typer.Option(None, help="cpu, cuda or auto (default: the preset's; paper: auto, "
                                                    "bf16 on a GPU; `accelerate launch -m proceedings niv train` "
                                                    "for several)."),
    fonts_dir: Optional[Path] = typer.Option(None, help="Train on every variable TTF under this folder (e.g. a "
                                                        "google/fonts checkout) but the held-out families, "
                                                        "instead of the preset's families."),
) -> None:
    """Train NIV on a preset's training families; re-running into the same folder resumes."""
    from dataclasses import replace

    from proceedings.niv.data import build_dataset, directory_training_files, held_out_code_point, split
    from proceedings.niv.experiment import CONFIGS, DEVICES
    from proceedings.niv.model import default_model_dir
    from proceedings.niv.train import train as run

    if preset not in CONFIGS:
        raise ProceedingsError(f"unknown preset '{preset}'; choose one of: {', '.join(CONFIGS)}")
    cfg = CONFIGS[preset]
    if steps is not None:
        if steps < 1:
            raise ProceedingsError(f"--steps must be positive, got {steps}")
        cfg = replace(cfg, train=replace(cfg.train, steps=steps))
    fonts = directory_training_files(fonts_dir) if fonts_dir else split(cfg.split)["train"]
    data = build_dataset(fonts, cfg.max_points, cfg.charset, label="train")
    data = data.where(lambda g: not held_out_code_point(g.unicode))
    target = out or default_model_dir(preset).parent / f"cli-{conditioning}"
    _, record = run(data, replace(cfg.model, conditioning=conditioning), cfg.train, target, label=conditioning,
                    device=device or DEVICES[preset])
    console.print(f"saved {target}: loss {record.losses[0]:.4f} -> {record.losses[-1]:.4f} in {record.seconds:.0f} s")


@app.command("eval")
def evaluate(
    model: Optional[str] = typer.Option(None, help="A NIV model folder; default: the last small run's."),
    preset: str = typer.Option("small", help="Whose split and charset to evaluate on."),
    split: Optional[str] = typer.Option(None, help="Another committed split's held-out families instead, e.g. "
                                                   "handwriting (Caveat)."),
) -> None:
    """Mean point error per 1000 UPM on the held-out families: NIV, B1, B0."""
    from proceedings.niv.data import build_dataset, split as family_split
    from proceedings.niv.experiment import CONFIGS, score_arms

    predictor, fallback = load_predictor(model)
    if not hasattr(predictor, "model"):
        raise ProceedingsError("eval needs a NIV model folder (B1 and B0 are reported beside it)")
    if preset not in CONFIGS:
        raise ProceedingsError(f"unknown preset '{preset}'; choose one of: {', '.join(CONFIGS)}")
    cfg = CONFIGS[preset]
    held_out = build_dataset(family_split(split or cfg.split)["test"], cfg.max_points, cfg.charset, label="held-out")
    for name, errors in score_arms(held_out, {"niv": predictor.model}, fallback).items():
        console.print(f"{name}: " + ", ".join(f"{k} {v:.2f}" for k, v in errors.summary().items()))


@app.command()
def render(
    font: Path = typer.Argument(..., help="A variable font."),
    out: Path = typer.Option(..., "-o", "--out", help="PNG to write."),
    text: str = typer.Option("Hamburg", help="Text of each line."),
) -> None:
    """A waterfall: the text at five weights by each width the font has."""
    from proceedings.niv.render import waterfall

    if not font.is_file():
        raise ProceedingsError(f"'{font}' does not exist")
    console.print(f"wrote {waterfall(font, out, text)}")


@app.command("export-masters")
def export_masters(
    font: Path = typer.Argument(..., help="A variable font written by `convert`."),
    designspace: Path = typer.Option(..., help="The .designspace to write; masters go beside it."),
) -> None:
    """Editable masters: one static TTF per corner and a designspace that fontTools.varLib builds."""
    from proceedings.niv.masters import export_masters as run

    if not font.is_file():
        raise ProceedingsError(f"'{font}' does not exist")
    masters = run(font, designspace)
    console.print(f"wrote {designspace} and {len(masters)} masters")


@app.command()
def rejudge(record: Path = typer.Argument(..., help="A several-seed results record, e.g. results/niv/small.json.")) -> None:
    """Re-judge a several-seed record by today's verdict (the paired seed rule) from its seeds' own numbers."""
    from proceedings.niv.experiment import rejudge as judge

    if not record.is_file():
        raise ProceedingsError(f"'{record}' does not exist")
    try:
        loaded = json.loads(record.read_text())
    except json.JSONDecodeError as err:
        raise ProceedingsError(f"'{record}' is not a JSON results record ({err.msg})") from None
    checks, intervals = judge(loaded)
    seeds = ", ".join(str(s["seed"]) for s in loaded["seeds"]["per_seed"])
    console.print(f"seeds {seeds}: {sum(checks.values())} of {len(checks)} checks")
    for path, (low, high) in intervals.items():
        console.print(f"  {path.removeprefix('metrics.contrasts.')}: 95 % seed interval [{low:+.2f}, {high:+.2f}]"
                      " (holds below 0)")
    for rule, holds in checks.items():
        console.print(f"  {'✓' if holds else '✗'} {rule}", markup=False, highlight=False)
