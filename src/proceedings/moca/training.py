"""Training the compositional DiT: AdamW on the flow-matching loss, exact resume, a NaN guard.

Hugging Face Accelerate places the model (the CPU, a GPU, or one process per GPU under `accelerate launch`,
each taking its share of every batch); bf16 autocast runs when asked (the `paper` preset). All randomness of a step (batch indices, timesteps, noise, component IDs, class dropping) comes from
one torch.Generator whose state is saved with the weights and optimiser, so a run resumed from a
checkpoint at step s equals an uninterrupted one (tested). A non-finite loss skips the step and is
counted. Batches are padded to their largest component count; padded components are masked.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.core.progress import progress_bar
from proceedings.core.runtime import load_checkpoint, save_checkpoint
from proceedings.moca.data.procedural import Assembly
from proceedings.moca.flow import flow_matching_loss
from proceedings.moca.model import CompositionalDiT, DiTConfig, load_weights


@dataclass
class TrainConfig:
    steps: int = 100
    batch: int = 16
    lr: float = 1e-3
    weight_decay: float = 0.0
    warmup: int = 20
    seed: int = 0
    checkpoint_every: int = 0  # 0 = only at the end (when a checkpoint path is given)
    drop_class: float = 0.1  # CFG label dropout
    ema: float = 0.999  # decay of the weight average that samples (DiT); 0 = sample with the raw weights
    device: str = "cpu"  # cpu | cuda | auto; several GPUs: `accelerate launch -m proceedings moca train ...`
    mixed_precision: str = "no"  # "bf16": autocast (the paper preset); weights, optimiser and EMA stay fp32

    def __post_init__(self) -> None:
        if self.mixed_precision not in ("no", "bf16"):
            raise ProceedingsError(f"mixed_precision must be 'no' or 'bf16', got '{self.mixed_precision}'")


@dataclass
class TrainRecord:
    losses: list[float] = field(default_factory=list)
    skipped_nan: int = 0
    seconds: float = 0.0  # wall
    cpu_seconds: float = 0.0

    @property
    def steps(self) -> int:
        return len(self.losses) + self.skipped_nan

    @property
    def s_per_step(self) -> float:
        return self.seconds / max(1, self.steps)

    @property
    def cpu_s_per_step(self) -> float:
        return self.cpu_seconds / max(1, self.steps)


@dataclass
class Tensors:
    """A data set as padded tensors: tokens (S, Nmax, L, C), valid (S, Nmax), label (S,)."""

    points: torch.Tensor
    valid: torch.Tensor
    label: torch.Tensor

    def batch(self, index: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        width = int(self.valid[index].sum(1).max())
        return self.points[index, :width], self.label[index], self.valid[index, :width]


def to_tensors(assemblies: list[Assembly], classes: list[str], tokens: list[np.ndarray] | None = None) -> Tensors:
    """Pad a list of assemblies (one L) into tensors; unknown classes and degenerate parts are refused. The tokens
    are the assemblies' surface points, or `tokens` (one (N, L, C) array per assembly: VAE latents) when given."""
    if not assemblies:
        raise ProceedingsError("no training assemblies")
    tokens = [a.points for a in assemblies] if tokens is None else tokens
    width = max(a.n for a in assemblies)
    count, channels = tokens[0].shape[1:]
    points = np.zeros((len(assemblies), width, count, channels), np.float32)
    valid = np.zeros((len(assemblies), width), bool)
    labels = []
    for s, (a, x) in enumerate(zip(assemblies, tokens)):
        if a.kind not in classes:
            raise ProceedingsError(f"sample {a.sample_id} is a '{a.kind}', not one of the model's classes {classes}")
        if x.shape[1:] != (count, channels):
            raise ProceedingsError(f"sample {a.sample_id} has {x.shape[1]} tokens per component, expected {count}")
        points[s, : a.n], valid[s, : a.n] = x, True
        labels.append(classes.index(a.kind))
    return Tensors(torch.from_numpy(points), torch.from_numpy(valid), torch.tensor(labels))


def learning_rate(step: int, cfg: TrainConfig) -> float:
    """Linear warm-up, then cosine decay to 10 %."""
    if step < cfg.warmup:
        return cfg.lr * (step + 1) / cfg.warmup
    progress = (step - cfg.warmup) / max(1, cfg.steps - cfg.warmup)
    return cfg.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def ema_decay(step: int, cfg: TrainConfig) -> float:
    """The EMA decay at `step`, warmed up as (1 + step) / (10 + step) so early averages forget the initialisation."""
    return min(cfg.ema, (1 + step) / (10 + step))


def train(model_cfg: DiTConfig, data: Tensors, cfg: TrainConfig, checkpoint: Path | None = None,
          stop_at: int | None = None, max_seconds: float | None = None,
          desc: str = "train") -> tuple[CompositionalDiT, TrainRecord]:
    """Train to cfg.steps, resuming from `checkpoint` if it exists; stop early (checkpointed) at step `stop_at` or
    after the step that passes `max_seconds` of wall time, so a long run goes in pieces. Returns the model
    carrying its EMA weights (the ones to sample with) when cfg.ema > 0."""
    from accelerate import Accelerator

    from proceedings.core.runtime import choose_device

    # bf16 by torch.autocast here, not Accelerator(mixed_precision=...): Accelerate's process-wide state refuses a
    # second setting in one process (an fp32 arm after a bf16 one)
    accelerator = Accelerator(cpu=choose_device(cfg.device).type == "cpu")
    torch.manual_seed(cfg.seed)
    model = CompositionalDiT(model_cfg)
    optimiser = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    generator = torch.Generator().manual_seed(cfg.seed)
    average = [p.detach().clone() for p in model.parameters()]
    record, start = TrainRecord(), 0
    state = load_checkpoint(checkpoint) if checkpoint else None
    if state is not None:
        if DiTConfig(**state["model_config"]) != model_cfg or state["train_config"]["seed"] != cfg.seed:
            raise ProceedingsError(f"checkpoint '{checkpoint}' was made with another configuration; delete it to restart")
        load_weights(model, state["model"], str(checkpoint))
        optimiser.load_state_dict(state["optimiser"])
        generator.set_state(state["generator"])
        average = state["ema"]
        record, start = TrainRecord(**state["record"]), state["step"]
    wrapped, optimiser = accelerator.prepare(model, optimiser)
    average = [a.to(accelerator.device) for a in average]
    end = min(cfg.steps, stop_at if stop_at is not None else cfg.steps)
    wrapped.train()
    started, before = time.perf_counter(), record.seconds
    cpu_started, cpu_before = time.process_time(), record.cpu_seconds
    with progress_bar(total=cfg.steps, initial=start, desc=desc, unit="step") as bar:
        for step in range(start, end):
            index = torch.randint(len(data.label), (cfg.batch,), generator=generator)
            share = index[accelerator.process_index::accelerator.num_processes]  # this process's part of the batch
            points, label, valid = (z.to(accelerator.device) for z in data.batch(share))
            for group in optimiser.param_groups:
                group["lr"] = learning_rate(step, cfg)
            with torch.autocast(accelerator.device.type, torch.bfloat16, enabled=cfg.mixed_precision == "bf16"):
                loss = flow_matching_loss(wrapped, points, label, valid, generator, cfg.drop_class)
            optimiser.zero_grad(set_to_none=True)
            if not torch.isfinite(loss):
                record.skipped_nan += 1
            else:
                accelerator.backward(loss)
                accelerator.clip_grad_norm_(wrapped.parameters(), 1.0)
                optimiser.step()
                with torch.no_grad():
                    torch._foreach_lerp_(average, [p.detach() for p in model.parameters()], 1 - ema_decay(step, cfg))
                record.losses.append(loss.detach().item())
            bar.update()
            done = step + 1
            out_of_time = max_seconds is not None and time.perf_counter() - started >= max_seconds
            if checkpoint and (done == end or out_of_time or (cfg.checkpoint_every and done % cfg.checkpoint_every == 0)):
                record.seconds = before + time.perf_counter() - started
                record.cpu_seconds = cpu_before + time.process_time() - cpu_started
                if accelerator.is_main_process:
                    save_checkpoint(checkpoint, {"model": model.state_dict(), "optimiser": optimiser.state_dict(),
                                                 "generator": generator.get_state(), "step": done, "ema": average,
                                                 "record": asdict(record), "model_config": asdict(model_cfg),
                                                 "train_config": asdict(cfg)})
            if out_of_time:
                break
    record.seconds = before + time.perf_counter() - started
    record.cpu_seconds = cpu_before + time.process_time() - cpu_started
    model = accelerator.unwrap_model(wrapped, keep_fp32_wrapper=False)
    if cfg.ema > 0:
        with torch.no_grad():
            for p, a in zip(model.parameters(), average):
                p.copy_(a)
    return model, record
