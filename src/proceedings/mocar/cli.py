"""`proceedings mocar ...`: simulate SUMO scenarios, train an arm, evaluate, predict, draw.

torch and SUMO are imported inside the commands, so mounting this app costs nothing. The whole
comparison runs as `proceedings reproduce mocar --scale tiny|small`.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from proceedings.core.errors import ProceedingsError

app = typer.Typer(help="MoCAR: motion-code coordinate-aware autoregressive forecasting on SUMO traffic.",
                  no_args_is_help=True)
console = Console()


@app.callback()
def main() -> None:
    """MoCAR's own verbs; `proceedings reproduce mocar --scale tiny|small` runs the comparison."""


@app.command()
def sim(out: Path = typer.Option(..., "-o", "--out", help="Directory for the shards, maps and manifest.json."),
        city: str = typer.Option("A", help="A (grid, priority, Krauss) or B (spider/rand, lights, IDM, SL2015)."),
        n_networks: int = typer.Option(1, help="Networks (one SUMO run each; resumable per network)."),
        sim_seconds: float = typer.Option(120.0, help="Simulated seconds per network."),
        seed: int = typer.Option(0, help="Seed of the first network; network i uses seed + i."),
        protocol: str = typer.Option("av2", help="av2 (5 s + 6 s windows) or av1 (2 s + 3 s)."),
        stride_s: float = typer.Option(1.0, help="Seconds between window starts."),
        max_windows: int = typer.Option(2000, help="Windows kept per network (seeded draw).")) -> None:
    """Generate scenarios with SUMO: netgenerate, randomTrips.py, sumo --fcd-output, map export, windows."""
    from proceedings.mocar.sim import SimSpec, generate

    manifest = generate(out, SimSpec(city, n_networks, sim_seconds, seed, protocol, stride_s, max_windows))
    table = Table("network", "windows", "turn-heavy", "lane segments", "vehicle states", "states/s", "teleports")
    for n in manifest["networks"]:
        table.add_row(n["file"], str(n["windows"]), str(n["turn_heavy"]), str(n["lane_segments"]),
                      f"{n['vehicle_states']:,}", f"{n['vehicle_states_per_s']:,.0f}", str(n["teleports"]))
    console.print(table)


def _scenes(data: Path, skip_invalid: bool):
    """Load SUMO shards, or real AV2 scenario folders (<id>/scenario_<id>.parquet), and put torch on
    $PROCEEDINGS_THREADS threads (default 1) before any model work."""
    from proceedings.core.runtime import set_threads
    from proceedings.mocar.av2_interop import load_av2
    from proceedings.mocar.scenarios import load

    set_threads()
    real_av2 = data.is_dir() and not (data / "manifest.json").exists() and any(data.glob("*/scenario_*.parquet"))
    scenes, report = load_av2(data, skip_invalid=skip_invalid) if real_av2 else load(data, skip_invalid)
    if report["skipped_invalid"]:
        console.print(f"skipped {report['skipped_invalid']} invalid scenarios")
    return scenes


@app.command()
def train(data: Path = typer.Option(..., "--data", "--data-dir",
                                    help="Scenario directory made by `mocar sim`, or real AV2 scenario folders."),
          out: Path = typer.Option(..., "-o", "--out", help="Model directory (config.json + model.safetensors)."),
          arm: str = typer.Option("mocar", help="mocar, smart_lite or qcnet_lite."),
          scale: str = typer.Option("tiny", help="Model and training preset: tiny, small or paper."),
          steps: int = typer.Option(0, help="Override the preset's steps."),
          resume: bool = typer.Option(False, help="Continue from out/checkpoint.pt."),
          skip_invalid: bool = typer.Option(False, help="Drop invalid scenarios instead of stopping."),
          device: str = typer.Option("cpu", help="cpu, cuda or auto (Accelerate; several GPUs: `accelerate launch "
                                                 "-m proceedings mocar train --device cuda ...`).")) -> None:
    """Train one arm on a scenario directory with the preset's decoder, optimiser and steps."""
    from dataclasses import replace

    from proceedings.core.runtime import choose_device
    from proceedings.mocar.experiment import ARMS, Splits, build_arms, experiment_config, train_arm
    from proceedings.mocar.pretrained import save_pretrained
    from proceedings.mocar.training import accelerator

    if arm not in ARMS:
        raise ProceedingsError(f"unknown arm '{arm}'; use one of {', '.join(ARMS)}")
    choose_device(device)  # an unknown or absent device stops here, before the data are read
    cfg = replace(experiment_config(scale), device=device)
    train_cfg = replace(cfg.train, steps=steps) if steps else cfg.train
    scenes = _scenes(data, skip_invalid)
    model = build_arms(cfg, Splits(scenes, scenes, scenes, scenes), train_cfg.seed)[arm]
    checkpoint = out / "checkpoint.pt"
    if checkpoint.exists() and not resume:
        raise ProceedingsError(f"'{checkpoint}' exists; pass --resume to continue it or choose another --out")
    log = train_arm(arm, model, scenes, train_cfg, cfg, checkpoint)
    if not accelerator(device).is_main_process:  # under `accelerate launch` the first process saves
        return
    save_pretrained(model, out)
    console.print(f"{arm}: {log.steps} steps, loss {log.losses[0]:.3f} -> {log.losses[-1]:.3f}, "
                  f"{log.s_per_step:.3f} s/step; saved to {out}")


def _forecaster(model_dir: Path, modes: int):
    from proceedings.mocar.experiment import predictor
    from proceedings.mocar.pretrained import from_pretrained

    if modes < 1:
        raise ProceedingsError(f"K must be >= 1, got {modes}")
    return predictor(from_pretrained(model_dir), 0, modes=modes)


@app.command("eval")
def evaluate(data: Path = typer.Option(..., "--data", "--data-dir", help="Scenario directory, or real AV2 scenario folders."),
             model: Path = typer.Option(None, help="Model directory; without it only CV and CTRV are scored."),
             subset: str = typer.Option("all", help="all or turn-heavy."),
             k: int = typer.Option(6, "-k", help="Modes."),
             skip_invalid: bool = typer.Option(False)) -> None:
    """minADE6, minFDE6, MR@2m, brier-minFDE6 and off-road rate of a model beside CV and CTRV."""
    from proceedings.mocar.baselines import constant_velocity, ctrv
    from proceedings.mocar.evaluation import forecast_all, score

    scenes = _scenes(data, skip_invalid)
    if subset == "turn-heavy":
        scenes = scenes.subset(scenes.turn_heavy)
    elif subset != "all":
        raise ProceedingsError(f"unknown subset '{subset}'; use all or turn-heavy")
    if len(scenes) == 0:
        raise ProceedingsError(f"no scenarios in subset '{subset}'")
    arms = {"cv": constant_velocity, "ctrv": lambda b: ctrv(b, k)}
    if model is not None:
        arms = {model.name: _forecaster(model, k), **arms}
    table = Table("arm", "minADE6", "minFDE6", "minADE1", "minFDE1", "MR@2m", "brier-minFDE6", "off-road", "n")
    for name, predict in arms.items():
        row, _ = score(forecast_all(predict, scenes), scenes)
        table.add_row(name, *(f"{row[m]:.3f}" for m in ("min_ade6", "min_fde6", "min_ade1", "min_fde1", "mr2",
                                                        "brier_min_fde6", "off_road")), str(row["n"]))
    console.print(table)


@app.command()
def predict(data: Path = typer.Option(..., help="Scenario directory or .npz shard."),
            model: Path = typer.Option(..., help="Model directory."),
            index: int = typer.Option(0, help="Scenario index."),
            k: int = typer.Option(6, "-k"),
            out: Path = typer.Option(..., "-o", "--out", help="JSON forecast to write.")) -> None:
    """Forecast one scenario: K trajectories in global coordinates and their probabilities."""
    import numpy as np

    from proceedings.core.runtime import atomic_write_text
    from proceedings.mocar.batch import make_batch

    scenes = _scenes(data, False)
    if not 0 <= index < len(scenes):
        raise ProceedingsError(f"index {index} is outside 0..{len(scenes) - 1}")
    forecast = _forecaster(model, k)(make_batch(scenes, np.array([index])))
    points = forecast.points[0].double().numpy()
    if not np.isfinite(points).all():
        raise ProceedingsError(f"the forecast of scenario {scenes.scenario_id[index]} holds NaN; not written")
    atomic_write_text(out, json.dumps({"scenario_id": scenes.scenario_id[index], "points": points.round(3).tolist(),
                                       "probabilities": forecast.probabilities[0].tolist(),
                                       "clamped_segments": forecast.clamped}))
    console.print(f"wrote {k} modes x {points.shape[1]} steps for {scenes.scenario_id[index]} to {out}")


@app.command()
def viz(data: Path = typer.Option(..., help="Scenario directory or .npz shard."),
        index: int = typer.Option(0), forecast: Path = typer.Option(None, help="JSON from `mocar predict`."),
        out: Path = typer.Option(..., "-o", "--out", help="PNG to write.")) -> None:
    """Draw a scenario: lane chunks, neighbours, the focal history and future, and the K forecasts."""
    from proceedings.mocar.plots import draw_scenario

    scenes = _scenes(data, False)
    if not 0 <= index < len(scenes):
        raise ProceedingsError(f"index {index} is outside 0..{len(scenes) - 1}")
    modes = json.loads(forecast.read_text()) if forecast else None
    draw_scenario(scenes, index, modes, out)
    console.print(f"wrote {out}")


@app.command()
def ablate(scale: str = typer.Option("small", help="A preset with a run folder: small or paper."),
           seed: int = typer.Option(0, help="The run's seed."),
           only: str = typer.Option(None, help="Comma-separated ablations to train now (default: the preset's): "
                                               "beta0, no_alignment, frozen_tokenizer.")) -> None:
    """MoCAR's ablations, each trained like MoCAR as one more arm of the `reproduce` run (resumable) and paired
    with its MoCAR; writes results/mocar/<scale>/ablations.json (every ablation evaluated so far)."""
    from proceedings.core.runtime import set_threads
    from proceedings.mocar.ablation import run_ablations

    set_threads()
    names = tuple(n.strip() for n in only.split(",")) if only else None
    record = run_ablations(scale, seed, names)
    table = Table("arm", "A test minADE6", "minFDE6", "MR@2m", "turn-heavy minFDE6", "B minFDE6", "tokenizer ADE",
                  "minFDE6 cost, 90 % CI")
    for name, row in {"mocar": record["mocar"], **record["ablations"]}.items():
        cost = row.get("fde6_cost_ci")
        table.add_row(name, *(f"{row[k]:.2f}" for k in ("min_ade6", "min_fde6", "mr2", "turn_min_fde6", "b_min_fde6")),
                      f"{row['tokenizer_ade']:.3f}", f"[{cost[0]:+.2f}, {cost[1]:+.2f}]" if cost else "")
    console.print(table)


@app.command("export-av2")
def export_av2(data: Path = typer.Option(..., help="Scenario directory made by `mocar sim`."),
               out: Path = typer.Option(..., "-o", "--out", help="Directory for the AV2 scenario folders."),
               limit: int = typer.Option(0, help="Export only the first N windows (0 = all).")) -> None:
    """Write windows as Argoverse 2 scenarios (parquet + log_map_archive JSON), readable by the av2 API."""
    import numpy as np

    from proceedings.mocar.av2_interop import export_av2 as export

    scenes = _scenes(data, False)
    if limit:
        scenes = scenes.subset(np.arange(min(limit, len(scenes))))
    manifest = json.loads((data / "manifest.json").read_text())
    lanes = [json.loads((data / n["map"]).read_text())["lane_segments"] for n in manifest["networks"]]
    written = export(scenes, lanes, out)
    console.print(f"wrote {len(written)} AV2 scenarios to {out}")
