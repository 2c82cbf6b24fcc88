"""`proceedings moca ...`: data, train, train-vae, stage, sample, eval, bench-attn, render (issue 27).

torch and the model are imported inside the commands, so mounting this app costs nothing. The whole
comparison runs as `proceedings reproduce moca --scale tiny|small`; `train` here shares its checkpoints.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from proceedings.core.errors import ProceedingsError

app = typer.Typer(help="MoCA: component-routed sparse attention for part-based 3D generation.", no_args_is_help=True)
console = Console()


@app.callback()
def main() -> None:
    """MoCA's own verbs; torch runs on $PROCEEDINGS_THREADS threads (default 1)."""
    from proceedings.core.runtime import set_threads

    set_threads()


def _ints(text: str, what: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise ProceedingsError(f"{what} must be comma-separated integers, got '{text}'") from None
    if not values or min(values) < 1:
        raise ProceedingsError(f"{what} must be positive integers (N = 0 has nothing to attend to), got '{text}'")
    return values


@app.command()
def data(
    kind: str = typer.Option("chair", help="chair | table | shelf | scene:warehouse"),
    n: int = typer.Option(8, help="How many samples."),
    components: str = typer.Option("", help="Part-count range 'lo,hi' (default: the kind's range)."),
    points: int = typer.Option(16, help="L surface points per component."),
    seed: int = typer.Option(0),
    out: Path = typer.Option(None, help="Write one .glb per sample into this folder."),
) -> None:
    """Generate grammar samples: part counts, names, supports; optionally as .glb files."""
    from proceedings.moca.assembly import export_glb
    from proceedings.moca.data.procedural import generate

    rng = tuple(_ints(components, "--components")) if components else None
    if rng is not None and len(rng) != 2:
        raise ProceedingsError("--components takes 'lo,hi'")
    for a in generate(kind, n, rng, points, seed):
        console.print(f"{a.sample_id}: {a.n} components ({', '.join(p.name for p in a.parts)})")
        if out is not None:
            export_glb(a.points, out / f"{a.sample_id}.glb", [p.name for p in a.parts])


@app.command(name="train")
def train_cmd(
    scale: str = typer.Option("tiny", help="Preset: tiny | small | paper."),
    attention: str = typer.Option("moca", help="The cross block: full | moca | topk-drop | local."),
    seed: int = typer.Option(0),
    stop_at: int = typer.Option(None, help="Stop (checkpointed) at this step; run again to resume."),
    max_seconds: float = typer.Option(None, help="Stop (checkpointed) after this much wall time; run again to resume."),
    out: Path = typer.Option(None, help="save_pretrained directory for the trained model."),
) -> None:
    """Train one arm of a preset (resumable at small/paper: the checkpoints `reproduce` uses)."""
    from proceedings.moca.baselines import ARMS
    from proceedings.moca.experiment import datasets, experiment_config, latent_codec, train_arm

    if attention not in ARMS:
        raise ProceedingsError(f"unknown attention '{attention}'; choose one of: {', '.join(ARMS)}")
    cfg = experiment_config(scale, seed)
    codec = latent_codec(cfg, scale, seed)  # before the data: a latent preset without its VAE stops at once
    train_set, _ = datasets(cfg, seed)
    model, record = train_arm(cfg, scale, seed, attention, train_set, stop_at=stop_at, max_seconds=max_seconds,
                              codec=codec)
    console.print(f"{attention}: {record.steps} of {cfg.train.steps} steps, loss {record.losses[0]:.4f} -> "
                  f"{record.losses[-1]:.4f}, {record.s_per_step:.3f} s ({record.cpu_s_per_step:.3f} CPU-s) per step, "
                  f"{record.skipped_nan} NaN steps skipped")
    if out is not None:
        model.save_pretrained(out)
        console.print(f"saved to {out}")


@app.command(name="train-vae")
def train_vae_cmd(
    scale: str = typer.Option("paper", help="A latent preset (paper)."),
    seed: int = typer.Option(0),
    samples: int = typer.Option(200, help="Grammar samples per class whose parts train the VAE."),
    steps: int = typer.Option(2000), batch: int = typer.Option(32),
) -> None:
    """Train and freeze the component VAE whose latents the `paper` preset's DiT denoises (spec §2.1 b)."""
    from proceedings.moca.experiment import train_component_vae

    console.print(f"saved the component VAE to {train_component_vae(scale, seed, samples, steps, batch)}")


@app.command(name="stage")
def stage_cmd(
    scale: str = typer.Option("small", help="A staged preset: small | paper."),
    seed: int = typer.Option(0),
    max_seconds: float = typer.Option(300.0, help="Wall-time budget of this piece's training."),
) -> None:
    """Do the next piece of a staged comparison (an arm's training, its evaluation, or the cost sweep); repeat until done."""
    from proceedings.moca.experiment import stage

    console.print(stage(scale, seed, max_seconds))


@app.command(name="sample")
def sample_cmd(
    model_dir: Path = typer.Option(..., "--model", help="A save_pretrained directory."),
    label: str = typer.Option("chair", "--class", help="The class to generate."),
    n: int = typer.Option(8, help="Number of components."),
    steps: int = typer.Option(20, help="Euler steps."),
    guidance: float = typer.Option(2.0, help="Classifier-free guidance weight."),
    seed: int = typer.Option(0),
    vae: Path = typer.Option(None, help="The component VAE (train-vae) that decodes a latent model's tokens."),
    out: Path = typer.Option(Path("assembly.glb"), "-o", "--out"),
) -> None:
    """Generate one assembly and write it as a .glb with one named node per component."""
    from proceedings.moca.assembly import export_glb
    from proceedings.moca.flow import sample
    from proceedings.moca.latents import LatentCodec
    from proceedings.moca.model import CompositionalDiT

    model = CompositionalDiT.from_pretrained(model_dir)
    if label not in model.cfg.classes:
        raise ProceedingsError(f"class '{label}' is not one of the model's classes {model.cfg.classes}")
    if model.cfg.channels != 3 and vae is None:
        raise ProceedingsError(f"'{model_dir}' denoises component-VAE latents; pass --vae with the VAE it was trained on")
    points = sample(model, model.cfg.classes.index(label), n, steps=steps, cfg=guidance, seed=seed)[0].numpy()
    if model.cfg.channels != 3:
        points = LatentCodec.from_pretrained(vae).decode(points, model.cfg.points, seed=seed)
    console.print(f"wrote {export_glb(points, out)} ({n} components)")


@app.command(name="eval")
def eval_cmd(
    files: list[Path] = typer.Argument(..., help="Generated .glb files (from `sample`) or mesh files with named parts."),
    kind: str = typer.Option("chair", help="The grammar class to compare against."),
    references: int = typer.Option(48, help="Held-out grammar samples to compare with."),
    points: int = typer.Option(16, "--L", help="Points sampled per named part of a mesh file."),
    max_components: int = typer.Option(64, help="Most named parts a mesh file may have."),
    merge_small_parts: bool = typer.Option(False, help="Fold a mesh file's smallest parts together down to --max-components."),
    seed: int = typer.Option(1),
) -> None:
    """Part IoU, 1-NNA and violation rate of assemblies against held-out grammar samples (boxes fitted per part)."""
    from proceedings.moca.data.meshes import assembly_points
    from proceedings.moca.data.procedural import generate
    from proceedings.moca.metrics import calibrate_epsilon, fit_assembly, one_nna, part_iou, violation_rate

    clouds = [assembly_points(f, points, max_components, merge_small_parts) for f in files]
    held = generate(kind, references, None, clouds[0].shape[1], seed)
    ref = [fit_assembly(a.points, a.sample_id) for a in held]
    eps = calibrate_epsilon(ref)
    boxes = [fit_assembly(c, str(f)) for c, f in zip(clouds, files)]
    console.print(json.dumps({"part_iou": part_iou(boxes, ref), "one_nna": one_nna(boxes, ref),
                              "violation_rate": violation_rate(boxes, eps), "epsilon": eps}, indent=2))


@app.command(name="bench-attn")
def bench_attn(
    n: str = typer.Option("8,16,32,64,128", "--n", help="Component counts N."),
    points: int = typer.Option(32, "--L", help="Tokens per component L."),
    k: int = typer.Option(4), sigma: int = typer.Option(8), dim: int = typer.Option(64), heads: int = typer.Option(4),
    repeats: int = typer.Option(3), device: str = typer.Option("cpu"),
    plot: Path = typer.Option(None, help="Write the FLOPs/time plot here (PNG)."),
) -> None:
    """Counted FLOPs and interleaved fwd / fwd+bwd times of the cross block per N: Full against MoCA."""
    from proceedings.moca.attention import check_shape
    from proceedings.moca.costs import sweep
    from proceedings.moca.experiment import plot_sweep

    check_shape(points, k, sigma)
    result = sweep(_ints(n, "--n"), points, dim, heads, k, sigma, repeats=repeats, device=device)
    table = Table(title=f"cross block, L={points}, k={k}, sigma={sigma}, d={dim}, batch 1")
    for column in ("N", "arm", "keys/component", "attn GFLOPs", "total GFLOPs", "ms fwd", "ms fwd+bwd", "peak MB"):
        table.add_column(column)
    for r in result.rows:
        table.add_row(str(r.n), r.mode, str(r.context), f"{r.attention_flops / 1e9:.3f}", f"{r.flops / 1e9:.3f}",
                      f"{r.ms_forward:.1f}", f"{r.ms_forward_backward:.1f}", "-" if r.peak_mb is None else f"{r.peak_mb:.0f}")
    console.print(table)
    console.print(f"attention FLOP slope: full {result.slope('full'):.2f}, moca {result.slope('moca'):.2f}; "
                  f"MoCA faster from N = {result.crossover()}")
    if plot is not None:
        plot_sweep(result, plot)


@app.command()
def render(glb: Path = typer.Argument(...), out: Path = typer.Option(Path("view.png"), "-o", "--out")) -> None:
    """A 3-D scatter of a .glb assembly, one colour per component."""
    from proceedings.moca.assembly import read_glb_points
    from proceedings.moca.assembly import render as draw

    if not glb.exists():
        raise ProceedingsError(f"'{glb}' does not exist")
    names, points = read_glb_points(glb)
    console.print(f"wrote {draw(points, out, title=f'{glb.name}: {len(names)} components')}")
