"""`proceedings motionforcing ...`: render clips, train the arms, generate from user controls, evaluate, benchmark.

torch is imported inside the commands, so mounting this app costs nothing. The whole comparison runs as
`proceedings reproduce motionforcing --scale tiny|small`.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from pathlib import Path

import typer
from rich.console import Console

from proceedings.core.errors import ProceedingsError

app = typer.Typer(help="Motion Forcing: points -> depth -> driving video, with Masked Point Recovery.",
                  no_args_is_help=True)
console = Console()


@app.callback()
def main() -> None:
    """Motion Forcing's own verbs; `proceedings reproduce motionforcing --scale tiny|small` runs the comparison."""


@app.command()
def data(clips: int = typer.Option(..., help="Clips to render."), frames: int = 8, size: int = 32, seed: int = 0,
         ego_variants: bool = typer.Option(False, help="Four ego paths per scene (the ego-only suite)."),
         out: Path = typer.Option(..., help="Folder of shards (resumes finished shards).")) -> None:
    """Render drive clips with exact depth, instance ids, boxes and poses into resumable shards."""
    from proceedings.motionforcing.dataset import build

    if clips < 1 or frames < 2 or size < 8:
        raise ProceedingsError("need --clips >= 1, --frames >= 2 and --size >= 8")
    if ego_variants and clips % 4:
        raise ProceedingsError("--ego-variants needs a multiple of 4 clips (four ego paths per scene)")
    built = build(out, clips, frames, size, seed, ego_variants=ego_variants)
    console.print(f"{len(built)} clips of {frames} frames at {size} px in {out}")


@app.command()
def train(out: Path = typer.Option(..., help="Run folder: one resumable checkpoint per network, config.json."),
          scale: str = typer.Option("tiny", help="Preset whose data, widths and steps to use (tiny or small)."),
          seed: int = 0,
          temporal: str = typer.Option("channels", help="Network layout: channels (frames folded into channels, the "
                                                        "records') or factorised (per-frame 2D + temporal 1D convs).")) -> None:
    """Train stage 1 (MPR and full points), stage 2, the matched direct model and the localiser; re-run resumes."""
    from proceedings.core.staging import budget_deadline
    from proceedings.motionforcing.comparison import datasets, train_arms
    from proceedings.motionforcing.experiment import BUDGET_ENV, CONFIGS
    from proceedings.motionforcing.networks import TEMPORAL

    cfg = CONFIGS.get(scale)
    if cfg is None or cfg.backend != "unet":
        raise ProceedingsError(f"train runs the UNet presets (tiny, small), not '{scale}'")
    if temporal not in TEMPORAL:
        raise ProceedingsError(f"--temporal {temporal!r}: choose one of {', '.join(TEMPORAL)}")
    deadline = budget_deadline(BUDGET_ENV)
    train_arms(cfg, datasets(cfg, seed, deadline)["train"], seed, out, deadline, temporal)
    (out / "config.json").write_text(json.dumps({"scale": scale, "seed": seed, "temporal": temporal, **asdict(cfg)},
                                                indent=1))
    console.print(f"trained every arm into {out}")


@app.command()
def generate(run: Path = typer.Option(None, help="Run folder from `train` (UNet backend)."),
             image: Path = typer.Option(..., help="I0 as PNG, the run's size."),
             depth: Path = typer.Option(..., help="Depth of I0 in metres (.npy, same size)."),
             masks: Path = typer.Option(..., help="masks.npz: 'masks' (N, H, W) bool and 'ids' (N,)."),
             traj: Path = typer.Option(..., help="traj.json (objects' pixel waypoints, ego path, causal)."),
             out: Path = typer.Option(..., help="Output folder: points.mp4, ego_warp.mp4, depth.mp4, rgb.mp4."),
             backend: str = typer.Option("unet", help="unet (a trained run) or cogvideox (local weights)."),
             base: Path = typer.Option(None, help="CogVideoX-5b-I2V folder (cogvideox backend)."),
             transformer: Path = typer.Option(None, help="Motion Forcing transformer folder (cogvideox backend).")) -> None:
    """Condition videos first (points, ego warp), then the depth and RGB videos."""
    if backend == "cogvideox":
        from proceedings.motionforcing.cogvideox import require_weights

        require_weights(base, transformer)
        raise ProceedingsError("the CogVideoX backend found its weights; wiring the released transformer's point and "
                               "depth-warp latents needs a GPU and is not part of this build (see README)")
    if backend != "unet":
        raise ProceedingsError(f"unknown backend '{backend}'; choose unet or cogvideox")
    if run is None:
        raise ProceedingsError("the UNet backend needs --run (a folder written by `motionforcing train`)")
    _generate_unet(run, image, depth, masks, traj, out)


def _generate_unet(run: Path, image: Path, depth_path: Path, masks_path: Path, traj_path: Path, out: Path) -> None:
    import imageio.v3 as iio
    import numpy as np

    from proceedings.motionforcing.generation import controls, generate, load_run
    from proceedings.motionforcing.video_io import depth_frames, write_mp4
    from proceedings.motionforcing.waypoints import load_masks

    cfg, arms = load_run(run)
    rgb0 = np.asarray(iio.imread(image), np.float32)[..., :3] / 255.0
    c = controls(cfg, rgb0, np.load(depth_path).astype(np.float32), load_masks(masks_path), traj_path.read_text())
    write_mp4(out / "points.mp4", c.points)  # the conditions first: a failed generation can be re-run from them
    write_mp4(out / "ego_warp.mp4", depth_frames(c.warp))
    depth, rgb = generate(arms, c)
    write_mp4(out / "depth.mp4", depth_frames(depth))
    write_mp4(out / "rgb.mp4", rgb)
    console.print(f"wrote points.mp4, ego_warp.mp4, depth.mp4 and rgb.mp4 to {out}")


@app.command("eval")
def evaluate(run: Path = typer.Option(..., help="Run folder from `train`."),
             out: Path = typer.Option(Path("report.json"), help="Where to write the suite tables.")) -> None:
    """Every test suite of the run's preset (full, incomplete, ego-only) for every arm, with the frozen evaluators."""
    from proceedings.core.runtime import atomic_write_text
    from proceedings.motionforcing.comparison import datasets, evaluate as run_suites
    from proceedings.motionforcing.generation import load_run

    cfg, arms = load_run(run)
    meta = json.loads((run / "config.json").read_text())
    tables, pooled = run_suites(arms, datasets(cfg, meta["seed"]), cfg, meta["seed"])
    drop = lambda row: {k: v for k, v in row.items() if not k.endswith("per_clip")} if isinstance(row, dict) else row  # noqa: E731
    atomic_write_text(out, json.dumps({m: {a: drop(r) for a, r in t.items()} for m, t in tables.items()}, indent=1))
    console.print(f"suite tables written to {out}")


@app.command()
def bench(sizes: str = "32,64", clips: int = 4,
          scale: str = typer.Option("", help="Also time generation and each evaluator at this preset's size, frames "
                                             "and widths (fresh weights: speed does not depend on training)."),
          temporal: str = typer.Option("channels", help="The networks' layout for --scale: channels or factorised.")) -> None:
    """Renderer ms/frame and clips/s at each size; with --scale, generated clips/s and evaluator s/clip (one thread)."""
    from proceedings.motionforcing import drive_world

    for size in (int(s) for s in sizes.split(",")):
        start = time.process_time()
        for seed in range(clips):
            drive_world.sample(seed, 8, size)
        cpu = time.process_time() - start
        console.print(f"{size} px: {1000 * cpu / (8 * clips):.1f} ms/frame CPU (sampling included), {clips / cpu:.2f} clips/s")
    if scale:
        for line in _model_speeds(scale, clips, temporal):
            console.print(line)


def _model_speeds(scale: str, clips: int, temporal: str = "channels") -> list[str]:
    """CPU seconds per clip of MF generation (stage 1 + stage 2), B1 generation and each frozen evaluator."""
    import numpy as np
    import torch

    from proceedings.motionforcing import drive_world, evaluators as ev
    from proceedings.motionforcing.baselines import direct, direct_net, matched_direct_width
    from proceedings.motionforcing.dataset import ClipSet, batch
    from proceedings.motionforcing.ego_flow import ego_epe
    from proceedings.motionforcing.experiment import CONFIGS
    from proceedings.motionforcing.networks import parameters
    from proceedings.motionforcing.stages import appearance, shape, stage1_net, stage2_net

    cfg = CONFIGS.get(scale)
    if cfg is None or cfg.backend != "unet":
        raise ProceedingsError(f"bench --scale times the UNet presets (tiny, small, long), not '{scale}'")
    T = cfg.frames
    data = ClipSet.from_clips([drive_world.sample(seed, T, cfg.size, cfg.agents) for seed in range(clips)])
    s1, s2 = stage1_net(T, cfg.width_stage1, temporal).eval(), stage2_net(T, cfg.width_stage2, temporal).eval()
    b1 = direct_net(T, matched_direct_width(T, parameters(s1) + parameters(s2), temporal=temporal), temporal).eval()
    b = batch(data, np.arange(clips), data.given_all())
    jobs = {"MF generation (stage 1 + stage 2)": lambda: appearance(s2, b.image0, shape(s1, b)),
            "B1 generation": lambda: direct(b1, b),
            "localiser (scorable agent-frames)": lambda: ev.localise(ev.Localiser(cfg.localiser_width), data.rgb,
                                                                     data.colours, ev.scorable(data)),
            "FVMD-proxy features (LK tracks)": lambda: ev.motion_features(data.rgb),
            "ego-flow EPE (registration)": lambda: ego_epe(data.rgb, data)}
    lines = [f"networks in the {temporal} layout (B1 {parameters(b1):,} parameters, stage 1 + stage 2 "
             f"{parameters(s1) + parameters(s2):,})"]
    for name, job in jobs.items():
        with torch.no_grad():
            start = time.process_time()
            job()
            cpu = time.process_time() - start
        lines.append(f"{scale} ({cfg.size} px, T = {T}), {name}: {cpu / clips:.4f} CPU-s/clip, {clips / cpu:.1f} clips/s")
    return lines
