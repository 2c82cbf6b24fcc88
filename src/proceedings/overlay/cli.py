"""`proceedings overlay ...`: synth, annotate, stats, export, viz, train-l2i, sample, eval.

torch and the model code are imported inside the commands, so mounting this app costs nothing. The
whole comparison runs as `proceedings reproduce overlay --scale tiny|small`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import typer
from rich.console import Console

from proceedings.core.errors import ProceedingsError

app = typer.Typer(help="OverLay++: dense, overlap-aware layout data for layout-to-image training.", no_args_is_help=True)
console = Console()


@app.callback()
def main() -> None:
    """OverLay++'s own verbs; `proceedings reproduce overlay --scale tiny|small` runs the comparison."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never a silent download (spec §7)


@app.command()
def synth(profile: str = typer.Option("dense", help="sparse (LayoutSAM-like) or dense (OverLay++-like)."),
          n: int = typer.Option(300, help="Images."), size: int = typer.Option(64, help="Canvas side in pixels."),
          seed: int = typer.Option(0), out: Path = typer.Option(..., help="Output folder (images/, annotations.jsonl)."),
          caption: str = typer.Option(None, help="short or rich (default: short for sparse, rich for dense)."),
          encoder: str = typer.Option("minilm", help="OverLayScore's caption encoder: minilm, bow or a local model."),
          shard_size: int = typer.Option(1000), resume: bool = typer.Option(False, help="Skip finished shards.")) -> None:
    """Generate images with exact records (masks painted back to front)."""
    from proceedings.overlay.synth import generate

    path = generate(profile, n, out, size, seed, caption, encoder, shard_size, resume)
    console.print(f"{n} {profile} images -> {path}")


def _read_image(path: Path):
    import numpy as np
    from PIL import Image, ImageOps

    with Image.open(path) as image:
        return np.asarray(ImageOps.exif_transpose(image).convert("RGB"))


@app.command()
def annotate(images: Path = typer.Option(..., help="Folder of images (PNG/JPEG)."),
             out: Path = typer.Option(..., help="Output folder: part-*.jsonl shards, errors.jsonl, report.json."),
             detector: str = typer.Option("oracle-noisy", help="oracle, oracle-noisy, or a local detector (Grounding DINO)."),
             segmenter: str = typer.Option("oracle-noisy", help="oracle, oracle-noisy, or a local SAM."),
             truth: Path = typer.Option(None, help="Ground-truth annotations.jsonl (the oracle back-ends read it; "
                                                   "with it a report.json scores the run)."),
             encoder: str = typer.Option("bow", help="OverLayScore's caption encoder."),
             device: str = typer.Option("cpu"), shard_size: int = typer.Option(1000),
             resume: bool = typer.Option(False, help="Skip shards with a .done marker."), seed: int = typer.Option(0)) -> None:
    """Rebuild records from images: grounding, segmentation, amodal completion, order, overlaps, filters."""
    from proceedings.core.runtime import atomic_write_text
    from proceedings.overlay.annotation_quality import annotation_report
    from proceedings.overlay.backends import ORACLES, load_backends
    from proceedings.overlay.pipeline import Backends, annotate_image
    from proceedings.overlay.records import read_records

    backends = Backends(detector, segmenter, encoder, device)
    det, seg = load_backends(detector, segmenter, device)  # fails here for a model not on disk
    if not images.is_dir():
        raise ProceedingsError(f"--images '{images}' is not a folder")
    truth = truth or (images.parent / "annotations.jsonl" if (images.parent / "annotations.jsonl").exists() else None)
    if (detector in ORACLES or segmenter in ORACLES) and truth is None:
        raise ProceedingsError("the oracle back-ends need --truth (the generator's annotations.jsonl)")
    by_id = {r["image_id"]: r for r in read_records(truth)} if truth else {}
    files = sorted(p for p in images.iterdir() if p.suffix.lower() in (".png", ".jpg", ".jpeg"))
    errors, done = [], []
    for start in range(0, len(files), shard_size):
        part = out / f"part-{start // shard_size:05d}.jsonl"
        if resume and part.with_suffix(".done").exists():
            continue
        lines = []
        for path in files[start:start + shard_size]:
            try:
                image = _read_image(path)
            except Exception as err:  # unreadable, truncated, zero-sized: skipped and counted
                errors.append({"file": path.name, "reason": f"{type(err).__name__}: {err}"})
                continue
            record = annotate_image(image, path.stem, by_id.get(path.stem), backends, det, seg, seed)
            lines.append(json.dumps(record) + "\n")
        atomic_write_text(part, "".join(lines))
        atomic_write_text(part.with_suffix(".done"), "")
        done.append(part.name)
    atomic_write_text(out / "errors.jsonl", "".join(json.dumps(e) + "\n" for e in errors))
    console.print(f"annotated {len(files) - len(errors)} images in {len(done)} new shards; {len(errors)} skipped")
    if by_id:
        report = annotation_report(read_records(out), list(by_id.values()))
        atomic_write_text(out / "report.json", json.dumps(report, indent=1))
        console.print(json.dumps({k: report[k] for k in ("pipeline", "naive")}))


@app.command()
def stats(path: Path = typer.Option(..., "--in", help="annotations.jsonl or a folder of shards."),
          compare: Path = typer.Option(None, help="A second (sparse) set: print the dense/sparse ratios."),
          out: Path = typer.Option(None, help="Write stats.json here (default: beside --in).")) -> None:
    """Objects/image, overlap pairs, words per caption, OverLayScore; with --compare the ratios."""
    from proceedings.core.runtime import atomic_write_text
    from proceedings.overlay.records import read_records
    from proceedings.overlay.stats import compare as ratios
    from proceedings.overlay.stats import markdown, summarize

    summary = summarize(read_records(path))
    result = {"summary": summary}
    console.print(markdown(summary, str(path)))
    if compare:
        other = summarize(read_records(compare))
        console.print(markdown(other, str(compare)))
        result["compare"] = {"other": other, **ratios(summary, other)}
        console.print(json.dumps({k: round(v, 3) for k, v in ratios(summary, other).items()}))
    target = out or (path.parent if path.is_file() else path) / "stats.json"
    atomic_write_text(target, json.dumps(result, indent=1))


@app.command("export")
def export_cmd(path: Path = typer.Option(..., "--in", help="annotations.jsonl or a folder of shards."),
               fmt: str = typer.Option(..., "--format", help="coco, layoutsam or overlaybench."),
               out: Path = typer.Option(..., help="Output JSON file.")) -> None:
    """Write the records as COCO, LayoutSAM or OverLayBench JSON."""
    from proceedings.overlay.export import export
    from proceedings.overlay.records import read_records

    console.print(f"-> {export(read_records(path), fmt, out)}")


@app.command()
def viz(path: Path = typer.Option(..., "--in", help="annotations.jsonl (its images/ beside it)."),
        image_id: str = typer.Option(..., "--id"), out: Path = typer.Option(..., help="PNG to write.")) -> None:
    """Draw one record: boxes, hatched overlap regions, front markers, captions."""
    from proceedings.overlay.records import read_records
    from proceedings.overlay.viz import draw

    records = {r["image_id"]: r for r in read_records(path)}
    if image_id not in records:
        raise ProceedingsError(f"no image '{image_id}' in {path}")
    record = records[image_id]
    console.print(f"-> {draw(record, _read_image(path.parent / record['file']), out)}")


@app.command("train-l2i")
def train_l2i(data: Path = typer.Option(..., help="annotations.jsonl of a synth or annotate run (images beside it)."),
              out: Path = typer.Option(..., help="Checkpoint file (model, EMA, optimiser, RNG, step)."),
              size: int = typer.Option(32, help="Training resolution."), steps: int = typer.Option(600),
              batch: int = typer.Option(32), lr: float = typer.Option(1e-3), seed: int = typer.Option(0),
              encoder: str = typer.Option("bow"), channels: str = typer.Option("24,48,96"),
              bbox_format: str = typer.Option("xyxy", help="xyxy or xywh boxes in --data."),
              resume: bool = typer.Option(False, help="Continue from --out's step.")) -> None:
    """Train the layout-to-image model by flow matching; checkpoints every 50 steps, exact resume."""
    from proceedings.core.runtime import atomic_write_text, set_threads
    from proceedings.overlay.flow import TrainConfig, train
    from proceedings.overlay.l2i import ModelConfig
    from proceedings.overlay.layout_files import layouts_from_records
    from proceedings.overlay.text_encoder import text_encoder

    set_threads()
    model_channels = _channels(channels)
    if size < 8 or size % 4:
        raise ProceedingsError(f"--size {size}: the UNet halves it twice, so give a multiple of 4, at least 8")
    if out.exists() and not resume:
        raise ProceedingsError(f"'{out}' exists; pass --resume to continue it or choose another --out")
    enc = text_encoder(encoder)
    layouts = layouts_from_records(data, size, enc, bbox_format)
    model_config = ModelConfig(enc.dim, model_channels)
    _, log = train(layouts, model_config, TrainConfig(steps=steps, batch=batch, lr=lr, seed=seed, checkpoint_every=50), out)
    atomic_write_text(out.with_suffix(".json"), json.dumps({"model": {"text_dim": enc.dim, "channels": model_config.channels},
                                                            "encoder": encoder, "size": size}))
    console.print(f"step {len(log.losses)}: loss {log.losses[-1]:.4f} ({log.wall_s:.1f} s, {log.cpu_s:.1f} CPU-s) -> {out}")


def _channels(text: str) -> tuple[int, int, int]:
    """--channels '24,48,96': three widths, each a positive multiple of 8 (the UNet's group norms)."""
    parts = text.split(",")
    if len(parts) != 3 or not all(p.strip().isdigit() and int(p) > 0 and int(p) % 8 == 0 for p in parts):
        raise ProceedingsError(f"--channels '{text}': give three comma-separated multiples of 8, e.g. 24,48,96")
    return tuple(int(p) for p in parts)


def _load_model(ckpt: Path):
    from proceedings.core.runtime import load_checkpoint
    from proceedings.overlay.l2i import LayoutUNet, ModelConfig

    meta_path = ckpt.with_suffix(".json")
    state = load_checkpoint(ckpt)
    if state is None or not meta_path.exists():
        raise ProceedingsError(f"no checkpoint '{ckpt}' with its '{meta_path.name}'; run train-l2i first")
    meta = json.loads(meta_path.read_text())
    model = LayoutUNet(ModelConfig(meta["model"]["text_dim"], tuple(meta["model"]["channels"])))
    model.load_state_dict(state["ema"])
    return model, meta


@app.command()
def sample(ckpt: Path = typer.Option(...), layouts: Path = typer.Option(..., help="annotations.jsonl with the layouts."),
           out: Path = typer.Option(..., help="Folder for the PNGs."), steps: int = typer.Option(20),
           guidance: float = typer.Option(2.0), seed: int = typer.Option(0),
           bbox_format: str = typer.Option("xyxy")) -> None:
    """Generate one image per layout (Euler steps, classifier-free guidance)."""
    import numpy as np
    from PIL import Image

    from proceedings.core.runtime import set_threads
    from proceedings.overlay.flow import sample as draw_samples
    from proceedings.overlay.layout_files import layouts_from_records
    from proceedings.overlay.records import read_records
    from proceedings.overlay.text_encoder import text_encoder

    set_threads()
    model, meta = _load_model(ckpt)
    data = layouts_from_records(layouts, meta["size"], text_encoder(meta["encoder"]), bbox_format)
    images = draw_samples(model, data, steps, guidance, seed)
    out.mkdir(parents=True, exist_ok=True)
    for record, image in zip(read_records(layouts, bbox_format), images):
        pixels = ((image.permute(1, 2, 0).numpy() + 1) * 127.5).round().clip(0, 255).astype(np.uint8)
        Image.fromarray(pixels).save(out / f"{record['image_id']}.png")
    console.print(f"{len(images)} images -> {out}")


@app.command("eval")
def eval_cmd(ckpt: Path = typer.Option(...), bench: str = typer.Option("overlay", help="overlay (dense, rich captions) "
                                                                                     "or sparse (short captions)."),
             n: int = typer.Option(100, help="Benchmark layouts."), steps: int = typer.Option(20),
             guidance: float = typer.Option(2.0), seed: int = typer.Option(0),
             probe_images: int = typer.Option(200), probe_steps: int = typer.Option(300)) -> None:
    """Score a checkpoint with the frozen-probe meter on a fresh benchmark (and the ground-truth upper bound)."""
    from proceedings.core.runtime import set_threads
    from proceedings.overlay.dataset import layout_set, make_examples, probe_data
    from proceedings.overlay.experiment import data_seed
    from proceedings.overlay.flow import sample as draw_samples
    from proceedings.overlay.meter import measure, summarise
    from proceedings.overlay.probes import train_probes
    from proceedings.overlay.text_encoder import text_encoder

    if bench not in ("overlay", "sparse"):
        raise ProceedingsError(f"unknown --bench '{bench}'; choose overlay or sparse")
    set_threads()
    model, meta = _load_model(ckpt)
    enc, size = text_encoder(meta["encoder"]), meta["size"]
    profile, caption = ("dense", "rich") if bench == "overlay" else ("sparse", "short")
    layouts = make_examples(profile, data_seed(seed, "bench"), n, size, caption, enc)
    probes = train_probes(probe_data(make_examples("sparse", data_seed(seed, "probe"), probe_images, size, "short", enc)
                                     + make_examples("dense", data_seed(seed, "probe"), probe_images, size, "short", enc)),
                          steps=probe_steps, seed=seed)
    data = layout_set(layouts, enc, 16)
    generated = summarise(measure(draw_samples(model, data, steps, guidance, seed), layouts, probes))
    upper = summarise(measure(data.images, layouts, probes))
    console.print(json.dumps({"model": generated, "ground_truth_upper_bound": upper}, indent=1))
