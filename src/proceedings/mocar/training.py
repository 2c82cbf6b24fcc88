"""One training loop for every learned arm: same windows, steps, batch, optimiser and seed (issue 25).

AdamW with a cosine schedule after a short warm-up; batches drawn by a seeded generator whose state
is checkpointed with the model, optimiser, scheduler and step, so a killed run resumes exactly (on any
device: the state is saved and loaded on the CPU). A step whose loss is not finite is skipped and the
learning rate halved (logged, counted). Hugging Face Accelerate places the run (issue 25, paper scale):
the CPU, one GPU, or one GPU per process under `accelerate launch`, where each process trains on its
share of the step's batch and the gradients are averaged.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.core.progress import progress_bar
from proceedings.core.runtime import choose_device, load_checkpoint, save_checkpoint
from proceedings.mocar.batch import make_batch
from proceedings.mocar.scenarios import Scenes

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TrainConfig:
    steps: int = 100
    batch: int = 16
    lr: float = 1e-3
    weight_decay: float = 0.01
    warmup: int = 10
    seed: int = 0
    checkpoint_every: int = 50

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class TrainLog:
    steps: int = 0
    losses: list[float] = field(default_factory=list)
    wall_s: float = 0.0
    cpu_s: float = 0.0
    skipped_nonfinite: int = 0
    scenarios: int = 0

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def s_per_step(self) -> float:
        return self.wall_s / max(self.steps, 1)


def schedule(step: int, cfg: TrainConfig) -> float:
    if step < cfg.warmup:
        return (step + 1) / cfg.warmup
    return 0.5 * (1 + math.cos(math.pi * (step - cfg.warmup) / max(cfg.steps - cfg.warmup, 1)))


def accelerator(device: str = "cpu"):
    """Accelerate's state for `device` (auto, cpu, cuda): `auto` and `cuda` give this process's GPU."""
    from accelerate import Accelerator

    return Accelerator(cpu=choose_device(device).type == "cpu")


class TrainingLoss(torch.nn.Module):
    """An arm whose forward is its training loss, so that Accelerate's data-parallel wrapper sees the pass."""

    def __init__(self, arm: torch.nn.Module):
        super().__init__()
        self.arm = arm

    def forward(self, batch, generator: torch.Generator) -> tuple[torch.Tensor, dict]:
        return self.arm.loss(batch, generator)


def train(model: torch.nn.Module, scenes: Scenes, cfg: TrainConfig, checkpoint: Path | None = None,
          desc: str = "train", until: int | None = None, device: str = "cpu") -> TrainLog:
    """Train `model` (which has `.loss(batch, generator)`) for cfg.steps steps on `device`; resumes from
    `checkpoint`. `until` stops early at that step (a staged run; the schedule still spans cfg.steps).
    """
    stop = min(cfg.steps, until or cfg.steps)
    accel = accelerator(device)
    if cfg.batch % accel.num_processes:
        raise ProceedingsError(f"batch {cfg.batch} does not split over {accel.num_processes} processes")
    model.to(accel.device)
    params = [p for p in model.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW(params, lr=cfg.lr, weight_decay=cfg.weight_decay)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimiser, lambda s: schedule(s, cfg))
    draw = np.random.default_rng(cfg.seed)
    noise = torch.Generator().manual_seed(cfg.seed)
    record = TrainLog()
    state = load_checkpoint(checkpoint) if checkpoint else None
    if state is not None:
        model.load_state_dict(state["model"])
        optimiser.load_state_dict(state["optimiser"])
        scheduler.load_state_dict(state["scheduler"])
        draw.bit_generator.state = state["draw"]
        noise.set_state(state["noise"])
        record = TrainLog(**state["log"])
    loss_of, optimiser = accel.prepare(TrainingLoss(model), optimiser)
    model.train()
    with progress_bar(total=cfg.steps, desc=desc, unit="step", initial=record.steps) as bar:
        t0, c0 = time.perf_counter(), time.process_time()
        while record.steps < stop:
            if hasattr(model, "at_step"):  # a loss that changes over training (MoCAR's closed-loop phase)
                model.at_step(record.steps, cfg.steps)
            index = draw.choice(len(scenes), size=min(cfg.batch, len(scenes)), replace=False)
            mine = index[accel.process_index::accel.num_processes]  # this process's share of the batch
            loss, _ = loss_of(make_batch(scenes, mine).to(accel.device), noise)
            if not torch.isfinite(accel.gather(loss.detach()[None])).all():  # every process skips alike
                record.skipped_nonfinite += 1
                for group in optimiser.param_groups:
                    group["lr"] /= 2
                log.warning("%s: non-finite loss at step %d; skipped, learning rate halved", desc, record.steps)
            else:
                optimiser.zero_grad()
                accel.backward(loss)
                accel.clip_grad_norm_(params, 1.0)
                optimiser.step()
                record.losses.append(float(loss.detach()))
            scheduler.step()
            record.steps += 1
            record.scenarios += len(index)
            bar.update()
            if checkpoint and accel.is_main_process and (record.steps % cfg.checkpoint_every == 0 or record.steps == stop):
                record.wall_s += time.perf_counter() - t0
                record.cpu_s += time.process_time() - c0
                t0, c0 = time.perf_counter(), time.process_time()
                save_checkpoint(checkpoint, {"model": model.state_dict(), "optimiser": optimiser.state_dict(),
                                             "scheduler": scheduler.state_dict(), "draw": draw.bit_generator.state,
                                             "noise": noise.get_state(), "log": record.to_dict()})
        record.wall_s += time.perf_counter() - t0
        record.cpu_s += time.process_time() - c0
    model.eval()
    return record
