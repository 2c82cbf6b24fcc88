"""Training: mixture log-likelihood plus the depth penalty, in a plain loop you can read (spec §2.2).

    loss = -mean_t log sum_e pi_e p_e(y_t)  +  lambda * mean_t sum_e pi_e l_e / L
           [+ w * sum_e -mean_t log p_e(y_t)  during the first `exit_ce_fraction` of the steps]

Two remedies for deep exits that starve because the router settles on the shallow ones early (spec
§2.2), both off by default: the bracketed term, the spec's auxiliary per-exit cross-entropy (w =
`exit_ce_weight`, spec: 0.1 over the first 10 %), by which every exit's head and the layers below it
learn to predict whatever the router does with them; and a lambda warm-up, lambda rising linearly from
0 over the first `depth_penalty_warmup` of the steps.

Training runs every layer at every position (teacher forcing: no deferral). The matched baseline is
the same loop on a single-exit model (baselines.py): same batches, optimiser, schedule and seed.
Hugging Face Accelerate places the model (CPU, one GPU, or `accelerate launch` for data-parallel
GPUs, each rank drawing its own batches). A checkpoint (weights, optimiser, RNG, step, loss history)
is written atomically every `checkpoint_every` steps and when SIGTERM arrives; `resume` continues
from it and reproduces the uninterrupted run's losses exactly, because a batch depends only on
(seed, step, rank).
"""

from __future__ import annotations

import json
import logging
import math
import signal
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

import torch

from proceedings.core.errors import ProceedingsError
from proceedings.core.runtime import atomic_write_text, load_checkpoint, restore_rng_state, rng_state, save_checkpoint
from proceedings.nvium.data import Corpus
from proceedings.nvium.model import NviumForCausalLM

log = logging.getLogger(__name__)

STATE_FILE = "train_state.pt"
LOG_FILE = "log.jsonl"


@dataclass
class TrainConfig:
    steps: int = 1000
    batch_size: int = 16
    seq_len: int = 256
    lr: float = 1e-3
    min_lr: float = 1e-4
    warmup_steps: int = 100
    weight_decay: float = 0.1
    grad_clip: float = 1.0
    depth_penalty: float = 0.03  # lambda (spec §2.2); 0 = the pure mixture likelihood
    depth_penalty_warmup: float = 0.0  # lambda rises linearly from 0 over this fraction of the steps (0 = none)
    exit_ce_weight: float = 0.0  # w of the auxiliary per-exit cross-entropy (spec §2.2 suggests 0.1); 0 = off
    exit_ce_fraction: float = 0.1  # ... applied during this fraction of the steps (spec §2.2: the first 10 %)
    trainable: str = "all"  # "all", or "router": only gates and exit norms (retrofit, spec §2.4)
    checkpoint_every: int = 200
    seed: int = 0
    device: str = "auto"
    mixed_precision: str = "no"  # "bf16" on GPUs

    def __post_init__(self) -> None:
        if self.depth_penalty < 0:
            raise ProceedingsError(f"depth penalty lambda must be >= 0 (got {self.depth_penalty}); 0 is the pure mixture")
        if not 0 <= self.depth_penalty_warmup <= 1:
            raise ProceedingsError(f"the lambda warm-up is a fraction of the steps in [0, 1], got {self.depth_penalty_warmup}")
        if self.exit_ce_weight < 0 or not 0 <= self.exit_ce_fraction <= 1:
            raise ProceedingsError(f"the auxiliary exit cross-entropy needs weight >= 0 and a fraction of the steps in "
                                   f"[0, 1] (got {self.exit_ce_weight}, {self.exit_ce_fraction})")
        if self.steps < 1 or self.batch_size < 1 or self.seq_len < 1:
            raise ProceedingsError("steps, batch size and sequence length must all be >= 1")
        if self.trainable not in ("all", "router"):
            raise ProceedingsError(f"trainable must be 'all' or 'router', got '{self.trainable}'")

    @property
    def tokens_per_step(self) -> int:
        return self.batch_size * self.seq_len


@dataclass
class TrainRecord:
    """What a run did; the loss history is the curve a resumed run must reproduce."""

    history: list[dict] = field(default_factory=list)  # one entry per step
    step: int = 0  # steps done
    wall_s: float = 0.0  # summed over every session of the run
    cpu_s: float = 0.0
    finished: bool = False
    interrupted: bool = False

    def tokens_seen(self, cfg: TrainConfig, processes: int = 1) -> int:
        return self.step * cfg.tokens_per_step * processes


def lr_at(step: int, cfg: TrainConfig) -> float:
    """Linear warm-up, then cosine decay to min_lr (nanoGPT's schedule)."""
    if step < cfg.warmup_steps:
        return cfg.lr * (step + 1) / cfg.warmup_steps
    progress = (step - cfg.warmup_steps) / max(1, cfg.steps - cfg.warmup_steps)
    return cfg.min_lr + 0.5 * (1 + math.cos(math.pi * min(1.0, progress))) * (cfg.lr - cfg.min_lr)


def depth_penalty_at(step: int, cfg: TrainConfig) -> float:
    """lambda at `step`: rising linearly from 0 during the warm-up, then the configured value."""
    warmup = cfg.depth_penalty_warmup * cfg.steps
    return cfg.depth_penalty * min(1.0, step / warmup) if warmup else cfg.depth_penalty


def exit_ce_weight_at(step: int, cfg: TrainConfig) -> float:
    """The auxiliary per-exit cross-entropy's weight at `step`: w early in training, then 0 (spec §2.2)."""
    return cfg.exit_ce_weight if step < cfg.exit_ce_fraction * cfg.steps else 0.0


def trainable_parameters(model: NviumForCausalLM, which: str) -> list[torch.nn.Parameter]:
    """Everything, or (retrofit) only the router gates and the intermediate exits' norms and adapters."""
    if which == "all":
        return list(model.parameters())
    for p in model.parameters():
        p.requires_grad_(False)
    chosen = [p for m in (*model.gates, *model.exit_norms[:-1], *model.exit_adapters) for p in m.parameters()]
    for p in chosen:
        p.requires_grad_(True)
    return chosen


def make_optimizer(params: list[torch.nn.Parameter], cfg: TrainConfig) -> torch.optim.AdamW:
    """AdamW with weight decay on matrices only (nanoGPT): norms, gate biases and vectors are not decayed."""
    decay = [p for p in params if p.dim() >= 2]
    rest = [p for p in params if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": cfg.weight_decay}, {"params": rest, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=cfg.lr, betas=(0.9, 0.95))


class _Lap:
    """Wall and CPU seconds since the last lap, so time is summed across checkpoints and resumes."""

    def __init__(self) -> None:
        self._wall, self._cpu = time.perf_counter(), time.process_time()

    def lap(self) -> tuple[float, float]:
        wall, cpu = time.perf_counter(), time.process_time()
        delta = (wall - self._wall, cpu - self._cpu)
        self._wall, self._cpu = wall, cpu
        return delta


class _SigtermCatcher:
    """Turns SIGTERM into a request to checkpoint and stop after the current step."""

    def __init__(self) -> None:
        self.requested = False
        self._previous = None

    def __enter__(self) -> "_SigtermCatcher":
        try:
            self._previous = signal.signal(signal.SIGTERM, self._handle)
        except ValueError:  # not the main thread: nothing to catch
            self._previous = None
        return self

    def _handle(self, signum, frame) -> None:
        log.warning("SIGTERM: checkpointing after this step")
        self.requested = True

    def __exit__(self, *exc) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGTERM, self._previous)


def train(model: NviumForCausalLM, corpus: Corpus, cfg: TrainConfig, out_dir: Path | str,
          resume: bool = True, progress: bool = True,
          on_step: Callable[[int, dict], None] | None = None) -> TrainRecord:
    """Train `model` in place and save it to `out_dir` (safetensors + config.json) when finished."""
    corpus.check_tokenizer(model.config.tokenizer, model.config.vocab_size)
    corpus.check_fits(cfg.seq_len)
    with _SigtermCatcher() as sigterm:  # from here on, SIGTERM means "checkpoint and stop"
        return _train(model, corpus, cfg, Path(out_dir), resume, progress, on_step, sigterm)


def _train(model: NviumForCausalLM, corpus: Corpus, cfg: TrainConfig, out_dir: Path, resume: bool,
           progress: bool, on_step, sigterm: _SigtermCatcher) -> TrainRecord:
    from accelerate import Accelerator
    from proceedings.core.progress import progress_bar

    out_dir.mkdir(parents=True, exist_ok=True)
    accelerator = Accelerator(cpu=cfg.device == "cpu", mixed_precision=cfg.mixed_precision)
    optimizer = make_optimizer(trainable_parameters(model, cfg.trainable), cfg)
    record = _restore(model, optimizer, out_dir / STATE_FILE) if resume else TrainRecord()
    if record.step >= cfg.steps:
        log.info("%s already finished %d steps; nothing to do", out_dir, record.step)
        return record
    ddp_model, optimizer = accelerator.prepare(model, optimizer)
    bar = progress_bar(total=cfg.steps, initial=record.step, desc=out_dir.name, disable=not progress, unit="step")
    clock = _Lap()
    for step in range(record.step, cfg.steps):
        entry = _train_step(ddp_model, optimizer, corpus, cfg, step, accelerator)
        record.history.append(entry)
        record.step = step + 1
        bar.update(1)
        bar.set_postfix(loss=f"{entry['loss']:.3f}", depth=f"{entry['depth']:.2f}")
        if on_step is not None:
            on_step(step, entry)
        if sigterm.requested:
            record.interrupted = True
            break
        if record.step % cfg.checkpoint_every == 0 and record.step < cfg.steps:
            _checkpoint(model, optimizer, record, out_dir, accelerator, clock)
    bar.close()
    record.finished = record.step >= cfg.steps
    if record.finished and accelerator.is_main_process:
        accelerator.unwrap_model(ddp_model).save_pretrained(out_dir)
    _checkpoint(model, optimizer, record, out_dir, accelerator, clock)
    return record


def _train_step(model, optimizer, corpus: Corpus, cfg: TrainConfig, step: int, accelerator) -> dict:
    lr = lr_at(step, cfg)
    for group in optimizer.param_groups:
        group["lr"] = lr
    x, y = corpus.batch(step, cfg.batch_size, cfg.seq_len, cfg.seed, rank=accelerator.process_index)
    x, y = x.to(accelerator.device), y.to(accelerator.device)
    loss = model(x, y, depth_penalty=depth_penalty_at(step, cfg)).loss
    exit_ce_weight = exit_ce_weight_at(step, cfg)
    accelerator.backward(loss.total + exit_ce_weight * loss.exit_nll.sum() if exit_ce_weight else loss.total)
    if cfg.grad_clip > 0:
        accelerator.clip_grad_norm_([p for g in optimizer.param_groups for p in g["params"]], cfg.grad_clip)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    parts = accelerator.reduce(torch.stack([loss.total, loss.nll, loss.depth]).detach(), reduction="mean")
    return {"step": step, "loss": parts[0].item(), "nll": parts[1].item(), "depth": parts[2].item(), "lr": lr}


def _checkpoint(model: NviumForCausalLM, optimizer, record: TrainRecord, out_dir: Path, accelerator,
                clock: _Lap) -> None:
    """Atomically save everything a resume needs, plus the loss log as JSON lines."""
    wall, cpu = clock.lap()
    record.wall_s, record.cpu_s = record.wall_s + wall, record.cpu_s + cpu
    if not accelerator.is_main_process:
        return
    state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "rng": rng_state(),
             "record": asdict(record)}
    save_checkpoint(out_dir / STATE_FILE, state)
    atomic_write_text(out_dir / LOG_FILE, "".join(json.dumps(h) + "\n" for h in record.history))


def _restore(model: NviumForCausalLM, optimizer, path: Path) -> TrainRecord:
    state = load_checkpoint(path)
    if state is None:
        return TrainRecord()
    try:
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
    except (RuntimeError, ValueError, KeyError) as err:
        raise ProceedingsError(
            f"checkpoint '{path}' does not match this model or training setup ({str(err).splitlines()[0]}); "
            "use another output folder or delete the checkpoint to start over"
        ) from err
    restore_rng_state(state["rng"])
    record = TrainRecord(**state["record"])
    record.interrupted = False
    log.info("resumed %s at step %d", path.parent, record.step)
    return record
