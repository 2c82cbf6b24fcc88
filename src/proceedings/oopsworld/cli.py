"""`proceedings oopsworld ...`: taxonomy, data, bench, train, rollout, eval.

torch and the model code are imported inside the commands. The whole comparison runs as
`proceedings reproduce oopsworld --scale tiny|small`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import typer
from rich.console import Console

from proceedings.core.errors import ProceedingsError

app = typer.Typer(help="SeamlessWorld taxonomy and data, OopsWorld training and interactive rollouts.",
                  no_args_is_help=True)
console = Console()


@app.callback()
def main() -> None:
    """OopsWorld's own verbs; `proceedings reproduce oopsworld --scale tiny|small` runs the comparison."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never a silent download (spec §7)


def _read_json(path: Path):
    try:
        return json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise ProceedingsError(f"'{path}' does not exist") from None
    except json.JSONDecodeError as err:
        raise ProceedingsError(f"{path}: line {err.lineno}: not valid JSON ({err.msg})") from None


@app.command()
def taxonomy(action: str = typer.Argument("list", help="list | show | validate"),
             name: str = typer.Argument(None, help="show: an operator; validate: a program JSON file."),
             scene: Path = typer.Option(None, help="validate: the scene JSON the program applies to.")) -> None:
    """Print the 8 families and 23 operators, one operator's typed record, or validate a program."""
    from proceedings.oopsworld.taxonomy import FAMILIES, OPERATORS, Program, ProgramError, validate_scene

    if action == "list":
        for family, what in FAMILIES.items():
            ops = [o for o in OPERATORS.values() if o.family == family]
            console.print(f"[bold]{family}[/bold] ({what}): " + ", ".join(
                f"{o.name}({', '.join(f'{a}: {t}' for a, t in o.args.items())})" for o in ops))
        console.print(f"{len(FAMILIES)} families, {len(OPERATORS)} operators")
    elif action == "show":
        if name not in OPERATORS:
            raise ProgramError(f"unknown operator '{name}'; known: {', '.join(OPERATORS)}")
        console.print_json(json.dumps(OPERATORS[name].__dict__, default=list))
    elif action == "validate":
        if name is None or scene is None:
            raise ProceedingsError("validate needs PROGRAM.json and --scene SCENE.json")
        the_scene = validate_scene(_read_json(scene))
        program = Program.parse(_read_json(Path(name)))
        program.validate(the_scene)
        console.print(f"valid: {len(program.ops)} op(s); touches {sorted(program.touches(the_scene))}; "
                      f"preserves {len(program.preserve(the_scene))} slots")
    else:
        raise ProceedingsError(f"unknown action '{action}'; use list, show or validate")


@app.command()
def data(out: Path = typer.Option(..., help="Output folder: frames.npz + episodes.jsonl."),
         episodes: int = typer.Option(64), segments: int = typer.Option(4), frames: int = typer.Option(8),
         size: int = typer.Option(32), max_objects: int = typer.Option(3), seed: int = typer.Option(0),
         stage: int = typer.Option(0, help="Curriculum stage 1-4; 0 = drawn per episode.")) -> None:
    """Training episodes: programs, both prompt surfaces, probes, exact frames."""
    from proceedings.oopsworld.data import build_episodes, save_episodes

    if not 0 <= stage <= 4:
        raise ProceedingsError(f"--stage must be 0-4, got {stage}")
    eps = build_episodes(range(seed, seed + episodes), cache=False, segments=segments, stage=stage or None,
                         frames=frames, size=size, max_objects=max_objects)
    console.print(f"{episodes} episodes x {segments} segments -> {save_episodes(eps, out)}")


@app.command()
def bench(out: Path = typer.Option(..., help="Output folder."), episodes: int = typer.Option(120),
          split: str = typer.Option("all", help="all, long, dynamics:low|high, composite:1|2|3, family:NAME."),
          segments: int = typer.Option(6), seed: int = typer.Option(10_000_000)) -> None:
    """A benchmark split (held-out seeds)."""
    from proceedings.oopsworld.data import build_episodes, save_episodes, split_options

    options = {"segments": segments, "stage": 4, **split_options(split)}
    eps = build_episodes(range(seed, seed + episodes), cache=False, **options)
    console.print(f"{split}: {episodes} episodes -> {save_episodes(eps, out)}")


def _config(scale: str, seed: int, steps: int, operators: str, **generator):
    """A preset, optionally with other steps, an operator subset and generator options (every arm)."""
    from dataclasses import replace

    from proceedings.core.errors import ProceedingsError
    from proceedings.core.runtime import check_scale
    from proceedings.oopsworld.experiment import CONFIGS
    from proceedings.oopsworld.taxonomy import OPERATORS, ProgramError

    subset = tuple(o for o in operators.split(",") if o) or None
    unknown = [o for o in subset or () if o not in OPERATORS]
    if unknown:
        raise ProgramError(f"unknown operator '{unknown[0]}'; known: {', '.join(OPERATORS)}")
    config = replace(CONFIGS[check_scale(scale)], seed=seed, operators=subset, **generator)
    if config.gated and config.encoder != "structured":
        raise ProceedingsError(f"--gated picks a head by the op token's operator word, which only the structured "
                               f"encoder has; scale '{scale}' encodes MiniLM text: use --scale tiny (structured) or "
                               f"--shared-head")
    if config.paint_gate and not config.paint_attn:
        raise ProceedingsError("--paint-gate gates the paint attention's colour offset; add --paint-attn")
    if config.layer_weight and not config.layers:
        raise ProceedingsError("--layer-weight supervises the object layers; add --layers J (J > 0)")
    return replace(config, steps=steps) if steps else config


@app.command()
def train(out: Path = typer.Option(..., help="Folder for checkpoints and <arm>.model.pt files."),
          scale: str = typer.Option("tiny", help="tiny | small | paper (the preset's data and steps)."),
          steps: int = typer.Option(0, help="N optimiser steps per arm (0 = the preset's)."),
          operators: str = typer.Option("", help="Comma-separated operator subset (default: all 23)."),
          palette: bool = typer.Option(None, "--palette/--free-colour", help="Redraw from the world's colours "
                                       "(default: the preset's)."),
          layers: int = typer.Option(None, help="J object layers moved rigidly instead of the 8x8 flow (0: the flow; "
                                     "default: the preset's)."),
          ramp: bool = typer.Option(None, "--ramp/--free-between", help="In-between frames fade in the end "
                                    "state's redraw (default: the preset's)."),
          erase: bool = typer.Option(None, "--erase/--no-erase", help="A second mask clears to the surrounding "
                                     "background before the redraw paints (default: the preset's)."),
          gated: bool = typer.Option(None, "--gated/--shared-head", help="One end-state redraw head per operator "
                                     "family, picked by the op tokens; needs the structured encoder (default: the "
                                     "preset's)."),
          paint_attn: bool = typer.Option(None, "--paint-attn/--no-paint-attn", help="Add a 32x32 cross-attention to "
                                          "the tokens to the end head's colour logits (default: the preset's)."),
          paint_gate: bool = typer.Option(None, "--paint-gate/--no-paint-gate", help="Multiply the paint attention's "
                                          "colour offset by a per-pixel gate; needs --paint-attn (default: the "
                                          "preset's)."),
          colour_weight: float = typer.Option(None, help="Weight of the end head's colour L1 inside the GT changed "
                                              "region in teacher forcing (0: off; default: the preset's)."),
          layer_weight: float = typer.Option(None, help="Weight of the object layers' loss against the world's own "
                                             "split and motions in teacher forcing; needs --layers (0: off; default: "
                                             "the preset's)."),
          ablations: bool = typer.Option(None, "--ablations/--no-ablations", help="Also train the no-curriculum and "
                                         "coupled-teacher ablations of OopsWorld (default: the preset's)."),
          seed: int = typer.Option(0)) -> None:
    """Train the teacher (= B1), B2 and OopsWorld of a preset (and its ablations); rerun the same command to resume."""
    from proceedings.core.runtime import set_threads
    from proceedings.oopsworld.experiment import training_data, train_arms
    from proceedings.oopsworld.rollout import save_model

    set_threads()
    generator = {k: v for k, v in (("palette", palette), ("layers", layers), ("ramp", ramp), ("erase", erase),
                                   ("gated", gated), ("paint_attn", paint_attn), ("paint_gate", paint_gate),
                                   ("colour_weight", colour_weight), ("layer_weight", layer_weight),
                                   ("ablations", ablations))
                 if v is not None}
    config = _config(scale, seed, steps, operators, **generator)
    timings: dict = {}
    arms, losses = train_arms(config, training_data(config), timings, checkpoints=out)
    for arm, model in arms.items():
        save_model(model, out / f"{arm}.model.pt", arm)
    console.print(json.dumps({"losses_first_last": losses, "timings": timings}))


@app.command()
def rollout(model: Path = typer.Option(..., help="A <arm>.model.pt file."),
            init: Path = typer.Option(..., help="The initial scene (JSON, the schema of spec §2.1)."),
            ops: Path = typer.Option(..., help="ops.jsonl: one operation per line, a JSON program or free text."),
            out: Path = typer.Option(..., help="Folder: frames/*.png, segments.jsonl, video.gif, rollout_state.pt."),
            resume: bool = typer.Option(False, help="Continue after the last finished segment."),
            seed: int = typer.Option(0)) -> None:
    """Keep a world on screen and apply operations segment by segment, from the model's own history."""
    from proceedings.core.runtime import set_threads
    from proceedings.oopsworld.rollout import load_model, read_operations, stream_rollout
    from proceedings.oopsworld.taxonomy import validate_scene

    set_threads()
    video = stream_rollout(load_model(model), validate_scene(_read_json(init)), read_operations(ops), out,
                           resume=resume, seed=seed, log=console.print)
    console.print(f"-> {video}")


@app.command(name="eval")
def eval_cmd(models: Path = typer.Option(..., help="Folder with teacher/b2/oopsworld .model.pt (from `train`)."),
             scale: str = typer.Option("tiny", help="The preset whose benchmark to use."),
             out: Path = typer.Option(Path("report.json")),
             operators: str = typer.Option("", help="The operator subset the arms were trained on."),
             seed: int = typer.Option(0)) -> None:
    """Score trained arms on the preset's benchmark, both surfaces (probes, PSNR, DD, Long-Quality proxy); when the
    folder holds the ablations too, also the high-dynamic / composite split's ablation read."""
    from proceedings.core.runtime import atomic_write_text, set_threads
    from proceedings.oopsworld.ablations import ABLATIONS, score_ablations
    from proceedings.oopsworld.experiment import benchmark_arms
    from proceedings.oopsworld.rollout import load_model

    set_threads()
    config = _config(scale, seed, 0, operators)
    names = ("teacher", "b2", "oopsworld", *(a for a in ABLATIONS if (models / f"{a}.model.pt").exists()))
    arms = {arm: load_model(models / f"{arm}.model.pt") for arm in names}
    report = benchmark_arms(config, arms)
    if all(a in arms for a in ABLATIONS):
        report["ablations"] = score_ablations(config, arms)
    atomic_write_text(out, json.dumps(report, indent=1))
    console.print(f"-> {out}")


@app.command()
def speed() -> None:
    """CPU costs: render, MiniLM, training steps, rollout, Farneback, peak RSS (the README's Speed table)."""
    from proceedings.oopsworld.speed import measure

    console.print(json.dumps(measure(), indent=1))
