"""One training loop for every network: AdamW, cosine learning rate, atomic checkpoints, exact resume.

Batches are a pure function of (seed, step) (`batch_fn(step)`), so a run resumed from a checkpoint
sees the same batches and ends with bit-identical weights (one thread, CPU).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from proceedings.core.progress import progress_bar
from proceedings.core.runtime import load_checkpoint, save_checkpoint
from proceedings.core.staging import Paused, past_deadline, pause_message


@dataclass
class TrainConfig:
    steps: int
    batch: int = 8  # clips (spec §5: batch 8 clips)
    lr: float = 1e-3  # AdamW, cosine (spec §5)
    seed: int = 0
    checkpoint_every: int = 0  # 0: no checkpoints


@dataclass
class TrainLog:
    losses: list[float] = field(default_factory=list)
    wall_s: float = 0.0
    cpu_s: float = 0.0


def train(model: torch.nn.Module, loss_fn: Callable[[torch.nn.Module, Any], torch.Tensor],
          batch_fn: Callable[[int], Any], cfg: TrainConfig, checkpoint: Path | None = None, desc: str = "train",
          stop_after: int | None = None, deadline: float | None = None) -> TrainLog:
    """Train `model` in place for cfg.steps (or until `stop_after` steps). Past `deadline` (time.time())
    the run saves its checkpoint and raises Paused."""
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=1e-4)
    log, start = TrainLog(), 0
    state = load_checkpoint(checkpoint) if checkpoint else None
    if state is not None:
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimiser"])
        log, start = TrainLog(**state["log"]), state["step"]
    end = cfg.steps if stop_after is None else min(cfg.steps, stop_after)
    model.train()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    with progress_bar(total=cfg.steps, initial=start, desc=desc, unit="step") as bar:
        for step in range(start, end):
            for group in opt.param_groups:
                group["lr"] = cfg.lr * 0.5 * (1 + math.cos(math.pi * step / cfg.steps))
            loss = loss_fn(model, batch_fn(step))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            log.losses.append(float(loss.detach()))
            bar.update()
            done = step + 1
            late = past_deadline(deadline) and done < end
            if checkpoint and (late or done == end or (cfg.checkpoint_every and done % cfg.checkpoint_every == 0)):
                log_state = {"losses": log.losses, "wall_s": log.wall_s + time.perf_counter() - wall0,
                             "cpu_s": log.cpu_s + time.process_time() - cpu0}
                save_checkpoint(checkpoint, {"model": model.state_dict(), "optimiser": opt.state_dict(),
                                             "step": done, "log": log_state})
            if late and checkpoint:
                raise Paused(pause_message(desc, done, end))
    log.wall_s += time.perf_counter() - wall0
    log.cpu_s += time.process_time() - cpu0
    model.eval()
    return log
