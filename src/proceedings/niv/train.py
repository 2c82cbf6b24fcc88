"""Training: MSE on per-point total displacement, AdamW with cosine decay, resumable (spec §2.2).

Samples are (glyph, corner) pairs. Each epoch's order is a seeded shuffle, bucketed by length (chunks
of 32 batches sorted by point count, so padding stays small) and then the batches shuffled: a batch is
a function of (seed, step), so two arms trained with the same seed see the same data in the same
order, and a resumed run continues exactly where the checkpoint left it. Hugging Face Accelerate runs the
loop: on the CPU (the laptop presets) it is the plain fp32 loop; on a GPU it trains in bf16 autocast, and under
`accelerate launch` each process takes its share of every batch.
"""

from __future__ import annotations

import json
import logging
import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch

from proceedings.core.progress import progress_bar
from proceedings.core.runtime import (atomic_write_text, load_checkpoint, restore_rng_state, rng_state,
                                      save_checkpoint)
from proceedings.niv.data import Dataset, Glyph
from proceedings.niv.model import NIV, NIVConfig

log = logging.getLogger(__name__)
TARGET_SCALE = 10.0  # displacements (· 2/UPM) are ~0.01-0.1; the loss sees them ×10
CHECKPOINT = "checkpoint.pt"
FINISHED = "train_record.json"  # written beside the saved model when a run completes


@dataclass
class TrainConfig:
    steps: int = 1200
    batch: int = 64
    lr: float = 3e-4  # official default
    weight_decay: float = 0.01
    warmup: int = 50
    checkpoint_every: int = 200
    seed: int = 0


@dataclass
class TrainRecord:
    losses: list[float] = field(default_factory=list)  # mean loss per logged window
    log_every: int = 10
    seconds: float = 0.0
    points: int = 0  # real points seen

    def drop(self) -> float:
        """Relative fall of the loss: 1 − last window / first window."""
        head = self.losses[: max(1, len(self.losses) // 10)]
        tail = self.losses[-max(1, len(self.losses) // 10):]
        return 1.0 - float(np.mean(tail)) / max(float(np.mean(head)), 1e-12)


def collate(glyphs: list[Glyph], corners: list[int] | None = None, locations: np.ndarray | None = None):
    """Pad a batch: features (B, P, F), mask (B, P), location (B, A), target (B, P, 2) or None."""
    width = max(g.n_points for g in glyphs)
    feats = np.zeros((len(glyphs), width, glyphs[0].features.shape[1]), np.float32)
    mask = np.zeros((len(glyphs), width), bool)
    target = np.zeros((len(glyphs), width, 2), np.float32) if corners is not None else None
    locs = np.zeros((len(glyphs), glyphs[0].corners.shape[1] if corners is not None else locations.shape[1]),
                    np.float32)
    for i, g in enumerate(glyphs):
        feats[i, : g.n_points], mask[i, : g.n_points] = g.features, True
        if corners is not None:
            locs[i] = g.corners[corners[i]]
            target[i, : g.n_points] = g.displacement[corners[i]]
        else:
            locs[i] = locations[i]
    return (torch.from_numpy(feats), torch.from_numpy(mask), torch.from_numpy(locs),
            None if target is None else torch.from_numpy(target))


def epoch_batches(lengths: np.ndarray, batch: int, rng: np.random.Generator) -> list[np.ndarray]:
    order = rng.permutation(len(lengths))
    chunk = batch * 32
    batches = []
    for start in range(0, len(order), chunk):
        part = order[start:start + chunk]
        part = part[np.argsort(lengths[part], kind="stable")]
        batches += [part[i:i + batch] for i in range(0, len(part) - batch + 1, batch)]
    return [batches[i] for i in rng.permutation(len(batches))]


def batch_schedule(samples: np.ndarray, lengths: np.ndarray, cfg: TrainConfig, start: int):
    """Sample-index batches for steps start.., fixed by (seed, step)."""
    step = 0
    epoch = 0
    while True:
        for indices in epoch_batches(lengths, cfg.batch, np.random.default_rng([cfg.seed, epoch])):
            if step >= start:
                yield step, samples[indices]
            step += 1
            if step >= cfg.steps:
                return
        epoch += 1


def learning_rate(step: int, cfg: TrainConfig) -> float:
    if step < cfg.warmup:
        return cfg.lr * (step + 1) / cfg.warmup
    progress = (step - cfg.warmup) / max(cfg.steps - cfg.warmup, 1)
    return cfg.lr * 0.5 * (1 + math.cos(math.pi * min(progress, 1.0)))


def train(data: Dataset, model_cfg: NIVConfig, cfg: TrainConfig, out_dir: Path | str, label: str = "NIV",
          device: str = "cpu") -> tuple[NIV, TrainRecord]:
    """Train (or resume from `out_dir/checkpoint.pt`), save the model in `out_dir` with save_pretrained; the
    returned model is on the CPU. `device`: cpu, cuda or auto (core.runtime.choose_device)."""
    from accelerate import Accelerator

    from proceedings.core.runtime import choose_device

    out_dir = Path(out_dir)
    done = finished_run(out_dir, model_cfg, cfg)
    if done is not None:
        log.info("%s already trained in %s: reusing it", label, out_dir)
        return done
    on_gpu = choose_device(device).type == "cuda"
    accelerator = Accelerator(cpu=not on_gpu, mixed_precision="bf16" if on_gpu else "no")
    torch.manual_seed(cfg.seed)
    model = NIV(model_cfg)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    record, start = TrainRecord(), 0
    state = load_checkpoint(out_dir / CHECKPOINT)
    if state is not None and state["train_config"] == asdict(cfg) and state["model_config"] == asdict(model_cfg):
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        restore_rng_state(state["rng"])
        record, start = TrainRecord(**state["record"]), state["step"]
        log.info("resuming %s from step %d", label, start)
    wrapped, optimizer = accelerator.prepare(model, optimizer)
    samples = np.array([(g, c) for g in range(len(data.glyphs)) for c in range(len(data.glyphs[g].corners))])
    lengths = np.array([data.glyphs[g].n_points for g, _ in samples])
    wrapped.train()
    window: list[float] = []
    clock = time.perf_counter()
    bar = progress_bar(desc=f"train {label}", total=cfg.steps, initial=start, unit="step")
    with bar:
        for step, pairs in batch_schedule(samples, lengths, cfg, start):
            pairs = pairs[accelerator.process_index::accelerator.num_processes]  # this process's share
            batch = collate([data.glyphs[g] for g, _ in pairs], [c for _, c in pairs])
            feats, mask, loc, target = (t.to(accelerator.device) for t in batch)
            for group in optimizer.param_groups:
                group["lr"] = learning_rate(step, cfg)
            pred = wrapped(feats, mask, loc).float()
            err = ((pred - target * TARGET_SCALE) ** 2).sum(-1)
            loss = (err * mask).sum() / mask.sum()
            optimizer.zero_grad(set_to_none=True)
            accelerator.backward(loss)
            accelerator.clip_grad_norm_(wrapped.parameters(), 1.0)
            optimizer.step()
            window.append(loss.item())
            record.points += int(mask.sum())
            if len(window) == record.log_every:
                record.losses.append(float(np.mean(window)))
                window = []
            bar.update(1)
            if (step + 1) % cfg.checkpoint_every == 0 and step + 1 < cfg.steps and accelerator.is_main_process:
                record.seconds += time.perf_counter() - clock
                clock = time.perf_counter()
                save_checkpoint(out_dir / CHECKPOINT, {
                    "model": model.state_dict(), "optimizer": optimizer.state_dict(), "rng": rng_state(),
                    "record": asdict(record), "step": step + 1, "train_config": asdict(cfg),
                    "model_config": asdict(model_cfg)})
    if window:
        record.losses.append(float(np.mean(window)))
    record.seconds += time.perf_counter() - clock
    model = accelerator.unwrap_model(wrapped).cpu().eval()
    if accelerator.is_main_process:
        model.save_pretrained(out_dir)
        atomic_write_text(out_dir / FINISHED, json.dumps({"train_config": asdict(cfg), "model_config": asdict(model_cfg),
                                                          "record": asdict(record)}))
        (out_dir / CHECKPOINT).unlink(missing_ok=True)
    return model, record


def finished_run(out_dir: Path, model_cfg: NIVConfig, cfg: TrainConfig) -> tuple[NIV, TrainRecord] | None:
    """The model and record of a completed run with exactly these configs in `out_dir`, else None, so a
    staged `reproduce` that was stopped after one arm continues with the next."""
    path = out_dir / FINISHED
    if not path.is_file():
        return None
    saved = json.loads(path.read_text())
    if saved["train_config"] != asdict(cfg) or saved["model_config"] != asdict(model_cfg):
        return None
    return NIV.from_pretrained(out_dir), TrainRecord(**saved["record"])


@torch.no_grad()
def predict(model: NIV, glyphs: list[Glyph], corners: np.ndarray, batch: int = 64) -> list[np.ndarray]:
    """(C, P, 2) predicted total displacements (· 2/UPM) per glyph at the given corners."""
    model.eval()
    out = [np.zeros((len(corners), g.n_points, 2), np.float32) for g in glyphs]
    pairs = [(i, c) for i in range(len(glyphs)) for c in range(len(corners))]
    pairs.sort(key=lambda p: glyphs[p[0]].n_points)
    for start in range(0, len(pairs), batch):
        chunk = pairs[start:start + batch]
        feats, mask, loc, _ = collate([glyphs[i] for i, _ in chunk], locations=corners[[c for _, c in chunk]])
        pred = model(feats, mask, loc).numpy() / TARGET_SCALE
        for row, (i, c) in enumerate(chunk):
            out[i][c] = pred[row, : glyphs[i].n_points]
    return out
