"""`proceedings ovie ...`: render data, train OVIE, fine-tune on pairs, render new views, evaluate, benchmark, diagnose.

torch is imported inside the commands, so mounting this app costs nothing. The whole comparison runs as
`proceedings reproduce ovie --scale tiny|small`.
"""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from pathlib import Path

import typer
from rich.console import Console

from proceedings.core.errors import ProceedingsError

app = typer.Typer(help="OVIE: novel views from one image and a pose, trained on single images.", no_args_is_help=True)
console = Console()


@app.callback()
def main() -> None:
    """OVIE's own verbs; `proceedings reproduce ovie --scale tiny|small` runs the comparison."""


@app.command()
def data(world: str = typer.Option("A", help="A (rooms), B (outdoor orbits) or C (single-image pool)."),
         pairs: int = typer.Option(0, help="True pairs to render."), singles: int = typer.Option(0, help="Single images."),
         size: int = 32, seed: int = 0, out: Path = typer.Option(..., help="Folder for singles.npz / pairs.npz.")) -> None:
    """Render procedural data with exact depth, normals and poses (cached by config)."""
    import numpy as np

    from proceedings.ovie.worlds import RenderSpec, render_set

    if pairs < 1 and singles < 1:
        raise ProceedingsError("nothing to render: pass --pairs N and/or --singles M")
    out.mkdir(parents=True, exist_ok=True)
    for count, is_pair, name in ((singles, False, "singles"), (pairs, True, "pairs")):
        if count:
            arrays = render_set(RenderSpec(world, count, size, seed, pairs=is_pair))
            np.savez_compressed(out / f"{world}_{name}.npz", **arrays)
            console.print(f"{count} {name} of world {world} at {size} px -> {out / f'{world}_{name}.npz'}")


@app.command()
def train(out: Path = typer.Option(..., help="Run folder: checkpoint.pt (resumable) and model.pt (EMA)."),
          scale: str = "tiny", seed: int = 0, depth: str = typer.Option("tiny", help="oracle, tiny or hf:<local id>"),
          steps: int = typer.Option(0, help="Override the preset's steps (0 = preset)."),
          resume: bool = typer.Option(False, help="Continue from out/checkpoint.pt exactly.")) -> None:
    """Train OVIE on the preset's single images of A, B and C (pseudo-pairs from the frozen estimator)."""
    from proceedings.ovie.experiment import datasets, experiment_config, pseudo_pairs
    from proceedings.ovie.depth import load_estimator, train_tiny
    from proceedings.ovie.networks import NovelViewNet, save_model
    from proceedings.ovie.camera import intrinsics
    from proceedings.ovie.train import Trainer

    cfg = experiment_config(scale, seed)
    cfg = replace(cfg, depth=depth, train=replace(cfg.train, steps=steps or cfg.train.steps, gan_weight=cfg.gan_weight))
    if (out / "checkpoint.pt").exists() and not resume:
        raise ProceedingsError(f"'{out / 'checkpoint.pt'}' exists; pass --resume to continue it or choose another --out")
    estimator = load_estimator(depth, cfg.estimator)
    sets = datasets(cfg, seed)
    net = NovelViewNet(cfg.size, intrinsics(cfg.size), cfg.arch)
    features = train_tiny(cfg.estimator).features
    trainer = Trainer(cfg.train, net, pseudo_pairs(cfg, sets, estimator), features, out / "checkpoint.pt")
    log = trainer.run(desc="train ovie")
    save_model(out / "model.pt", trainer.ema, units=estimator.units)
    console.print(f"trained {trainer.step} steps ({log.wall_s:.0f} s, {log.skipped_nonfinite} skipped) -> {out / 'model.pt'}")


@app.command("finetune-mv")
def finetune_mv(init: Path = typer.Option(..., help="model.pt to start from."),
                pairs: Path = typer.Option(..., help="pairs.npz from `ovie data --pairs`."),
                steps: int = 15, batch: int = 16, lr: float = 2e-3, seed: int = 0,
                out: Path = typer.Option(..., help="Fine-tuned model.pt.")) -> None:
    """Continue training on true pairs (mask = all ones): the paper's brief multi-view fine-tune."""
    from proceedings.ovie.networks import load_model, save_model
    from proceedings.ovie.pairs import TruePairs
    from proceedings.ovie.train import TrainConfig, Trainer

    net, units = load_model(init)
    arrays = _load_npz(pairs, ("rgb", "tgt_rgb", "T"))
    if arrays["rgb"].shape[-1] != net.size:
        raise ProceedingsError(f"pairs are {arrays['rgb'].shape[-1]} px but the model is {net.size} px")
    trainer = Trainer(TrainConfig(steps=steps, batch=batch, lr=lr, seed=seed, warmup=max(1, steps // 10)), net, TruePairs(arrays))
    trainer.run(desc="fine-tune on pairs")
    save_model(out, trainer.ema, units=units)
    console.print(f"fine-tuned {steps} steps -> {out}")


@app.command()
def render(ckpt: Path = typer.Option(..., help="model.pt"), image: Path = typer.Option(..., help="Source image."),
           pose: Path = typer.Option(None, help="Pose JSON (T_src_to_tgt, units)."),
           trajectory: str = typer.Option("", help="orbit, dolly or spiral: write an animated GIF instead."),
           frames: int = 24, units: str = typer.Option("", help="'relative' accepts a relative pose with a metric model."),
           upscale: bool = typer.Option(False, help="Allow a source smaller than the model size."),
           out: Path = typer.Option(..., help="out.png, or out.gif with --trajectory.")) -> None:
    """One new view from one image and a pose (no depth at inference), or a trajectory GIF."""
    import time

    import numpy as np
    import torch

    from proceedings.ovie.networks import load_model
    from proceedings.ovie.source_image import load_image
    from proceedings.ovie.pose_file import check_units, load_pose, trajectory as path_of

    net, model_units = load_model(ckpt)
    source = load_image(image, net.size, upscale)
    if trajectory:
        poses = path_of(trajectory, frames)
    elif pose is not None:
        target = load_pose(pose)
        check_units(target, model_units, override=units == "relative")
        poses = [target.T]
    else:
        raise ProceedingsError("pass --pose pose.json or --trajectory orbit|dolly|spiral")
    t0 = time.perf_counter()
    with torch.no_grad():
        views = net.eval()(source.expand(len(poses), -1, -1, -1), torch.as_tensor(np.stack(poses), dtype=torch.float32))
    ms = 1e3 * (time.perf_counter() - t0) / len(poses)
    pictures = [(v.permute(1, 2, 0).numpy() * 255).round().astype(np.uint8) for v in views]
    from PIL import Image

    out.parent.mkdir(parents=True, exist_ok=True)
    if trajectory:
        Image.fromarray(pictures[0]).save(out, save_all=True, append_images=[Image.fromarray(p) for p in pictures[1:]],
                                          duration=80, loop=0)
    else:
        Image.fromarray(pictures[0]).save(out)
    console.print(f"{len(pictures)} view(s) at {net.size} px, {ms:.1f} ms/view -> {out}")


@app.command("eval")
def evaluate(ckpt: Path = typer.Option(..., help="model.pt"), test: Path = typer.Option(..., help="pairs.npz"),
             baselines: str = typer.Option("copy,warp-inpaint", help="Comma list: copy, warp-inpaint."),
             depth: str = typer.Option("tiny", help="The warp baseline's estimator: oracle, tiny, hf:<id>."),
             out: Path = typer.Option(Path("report.json"))) -> None:
    """PSNR / SSIM (disoccluded pixels apart) of the model and baselines on true pairs."""
    from proceedings.ovie.baselines import copy_source, warp_inpaint
    from proceedings.ovie.camera import intrinsics
    from proceedings.ovie.depth import load_estimator
    from proceedings.ovie.experiment import predict
    from proceedings.ovie.metrics import disoccluded, scores
    from proceedings.ovie.networks import load_model

    net, _ = load_model(ckpt)
    pairs = _load_npz(test, ("rgb", "depth", "valid", "normal", "tgt_rgb", "T"))
    K = intrinsics(net.size)
    holes = disoccluded(pairs, K)
    rows = {"ovie": predict(net, pairs)}
    for name in filter(None, baselines.split(",")):
        if name == "copy":
            rows["copy"] = copy_source(pairs)
        elif name == "warp-inpaint":
            rows[f"warp_inpaint_{depth}"] = warp_inpaint(load_estimator(depth, _preset_estimator()), pairs, K)
        else:
            raise ProceedingsError(f"unknown baseline '{name}'; choose copy or warp-inpaint")
    report = {name: {k: v for k, v in scores(pred, pairs, holes).items() if k != "per_pair_psnr"} for name, pred in rows.items()}
    out.write_text(json.dumps(report, indent=1))
    for name, row in report.items():
        console.print(f"{name:28s} PSNR {row['psnr']:.2f}  SSIM {row['ssim']:.3f}  holes {row['psnr_disoccluded']:.2f}")


@app.command("bench-fps")
def bench_fps(ckpt: Path = typer.Option(None, help="model.pt (default: untrained weights of the same widths)"),
              sizes: str = "32,64", batches: str = "1,32", depth: str = "tiny") -> None:
    """Images/s of OVIE vs depth + splat + inpaint (stages apart), side by side on the same threads."""
    import torch

    from proceedings.ovie.camera import intrinsics
    from proceedings.ovie.depth import load_estimator
    from proceedings.ovie.networks import NovelViewNet, load_model
    from proceedings.ovie.speed import bench
    from proceedings.ovie.worlds import RenderSpec, render_set

    trained = load_model(ckpt)[0] if ckpt else None

    def make_net(size: int):
        net = NovelViewNet(size, intrinsics(size), trained.arch if trained else "unet")
        if trained is not None:
            net.load_state_dict(trained.state_dict())
        return net

    def make_views(size: int, batch: int):
        views = render_set(RenderSpec("A", batch, size, 5001, pairs=True))
        return views, torch.as_tensor(views["T"]).float()

    result = bench(make_net, load_estimator(depth, _preset_estimator()), make_views, _ints(sizes), _ints(batches))
    for key, row in result.items():
        console.print(f"{key:10s} OVIE {row['ovie_images_per_cpu_s']:8.1f} img/CPU-s   pipeline {row['pipeline_images_per_cpu_s']:8.1f} "
                      f"img/CPU-s   ratio {row['ratio']:.2f}x (wall {row['wall_ratio']:.2f}x)   stages CPU-ms/img "
                      f"{json.dumps({k: round(v, 2) for k, v in row['pipeline_stage_cpu_ms_per_image'].items()})}")


@app.command()
def diagnose(scale: str = "small", seed: int = 0,
             out: Path = typer.Option(None, help="Also write the numbers as JSON here.")) -> None:
    """After `reproduce`: test poses vs sampled pseudo-poses, pseudo-target quality, each arm on pseudo-pairs."""
    from proceedings.ovie.diagnostics import diagnose as measure

    report = measure(scale, seed)
    if out is not None:
        out.write_text(json.dumps(report, indent=1))
    for world, row in report.items():
        for kind in ("test_poses", "sampled_poses"):
            p = row[kind]
            console.print(f"{world} {kind:14s} rotation {p['rotation_deg']:5.1f} deg  |roll| {p['abs_roll_deg']:4.1f} deg  "
                          f"translation {p['translation_m']:.2f} m")
        console.print(f"{world} pseudo-target with the true pose: {row['true_pose_pseudo_target_psnr']:.2f} dB on its mask "
                      f"(copy {row['copy_psnr_on_that_mask']:.2f})")
        console.print(f"{world} masked PSNR on sampled pseudo-pairs: " +
                      ", ".join(f"{k} {v:.2f}" for k, v in row["masked_psnr_on_sampled_pseudo_pairs"].items()))


def _preset_estimator():
    """The tiny preset's estimator config: `reproduce ovie --scale tiny` has usually trained and cached it."""
    from proceedings.ovie.experiment import experiment_config

    return experiment_config("tiny").estimator


def _ints(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in text.split(","))
    except ValueError:
        raise ProceedingsError(f"'{text}' is not a comma-separated list of integers") from None


def _load_npz(path: Path, keys: tuple[str, ...]) -> dict:
    import numpy as np

    if not path.exists():
        raise ProceedingsError(f"'{path}' does not exist; make it with `proceedings ovie data --pairs N --out DIR`")
    with np.load(path) as data:
        missing = [k for k in keys if k not in data]
        if missing:
            raise ProceedingsError(f"'{path}' lacks {', '.join(missing)}; it must come from `ovie data --pairs`")
        return {k: data[k] for k in data.files}
