"""Training (spec §2.4): AdamW, warmup + cosine, grad clip 1.0, EMA, the GAN from a fraction of the steps.

One `Trainer` trains OVIE (pseudo-pairs), the MV baseline (true pairs) and the multi-view fine-tune,
so the arms share the network, optimiser, schedule, batch and step count. A non-finite loss or
gradient skips the step (counted). A checkpoint holds the model, EMA, discriminator, both optimisers
and schedulers, the step and every RNG, written atomically, so a resumed run equals an uninterrupted one.
"""

from __future__ import annotations

import copy
import math
import signal
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.core.progress import progress_bar
from proceedings.core.runtime import load_checkpoint, save_checkpoint
from proceedings.ovie.losses import (PatchDiscriminator, adaptive_weight, diff_augment, generator_loss, hinge_d_loss,
                                     masked_charbonnier, masked_feature_loss, masked_ssim_loss)
from proceedings.ovie.networks import NovelViewNet


@contextmanager
def termination_requests():
    """Within the block, SIGTERM sets a flag (read by calling the yielded function) instead of killing."""
    received: list[int] = []
    try:
        previous = signal.signal(signal.SIGTERM, lambda signum, frame: received.append(signum))
    except ValueError:  # not the main thread: leave signals alone
        yield lambda: False
        return
    try:
        yield lambda: bool(received)
    finally:
        signal.signal(signal.SIGTERM, previous)


@dataclass(frozen=True)
class TrainConfig:
    steps: int = 60
    batch: int = 32
    lr: float = 2e-3
    warmup: int = 5
    weight_decay: float = 1e-4
    grad_clip: float = 1.0
    ema_decay: float = 0.99
    ssim_weight: float = 0.2
    feature_weight: float = 0.1  # frozen tiny-estimator features, in place of DINO
    gan_weight: float = 0.0  # 0 = no adversarial term (MV, fine-tune, the no-GAN row)
    gan_start: float = 0.3  # spec §2.5: the GAN term from 30 % of the steps
    max_d_weight: float = 1.0
    d_lr: float = 2e-4
    seed: int = 0
    checkpoint_every: int = 0  # 0 = only at the end when a checkpoint path is given
    accelerate: bool = False  # Hugging Face Accelerate: GPU / multi-process (accelerate launch), bf16
    mixed_precision: str = "no"  # "bf16" at full scale (with accelerate)


@dataclass
class TrainLog:
    losses: list[float] = field(default_factory=list)
    skipped_nonfinite: int = 0
    wall_s: float = 0.0
    cpu_s: float = 0.0


def _lr_factor(cfg: TrainConfig):
    def factor(step: int) -> float:
        if step < cfg.warmup:
            return (step + 1) / cfg.warmup
        progress = (step - cfg.warmup) / max(1, cfg.steps - cfg.warmup)
        return 0.5 * (1 + math.cos(math.pi * min(progress, 1.0)))
    return factor


class Trainer:
    """Everything a run needs to continue exactly: model, EMA, D, optimisers, schedulers, step, RNGs."""

    def __init__(self, cfg: TrainConfig, net: NovelViewNet, data, features=None, checkpoint: Path | None = None):
        self.cfg, self.net, self.data, self.features, self.checkpoint = cfg, net, data, features, checkpoint
        torch.manual_seed(cfg.seed)
        self.ema = copy.deepcopy(net).requires_grad_(False)
        self.disc = PatchDiscriminator()
        self.opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
        self.opt_d = torch.optim.AdamW(self.disc.parameters(), lr=cfg.d_lr, betas=(0.5, 0.9))
        self.accelerator, self.device = None, torch.device("cpu")
        if cfg.accelerate:
            from accelerate import Accelerator

            self.accelerator = Accelerator(mixed_precision=cfg.mixed_precision)
            self.net, self.disc, self.opt, self.opt_d = self.accelerator.prepare(net, self.disc, self.opt, self.opt_d)
            self.device = self.accelerator.device
            self.ema.to(self.device)
            if isinstance(getattr(features, "__self__", None), torch.nn.Module):
                features.__self__.to(self.device)
        self.sched = torch.optim.lr_scheduler.LambdaLR(self.opt, _lr_factor(cfg))
        self.sched_d = torch.optim.lr_scheduler.LambdaLR(self.opt_d, _lr_factor(cfg))
        self.rng = np.random.default_rng(cfg.seed)
        self.aug = torch.Generator().manual_seed(cfg.seed)
        self.step, self.log = 0, TrainLog()
        self._clock = time.perf_counter(), time.process_time()
        if checkpoint is not None and (state := load_checkpoint(checkpoint)) is not None:
            self._restore(state)

    def plain(self, module: torch.nn.Module) -> torch.nn.Module:
        """The module without Accelerate's wrapper (DDP), for state dicts and the last layer."""
        return self.accelerator.unwrap_model(module) if self.accelerator else module

    def _state(self) -> dict:
        return {"model": self.plain(self.net).state_dict(), "ema": self.ema.state_dict(),
                "disc": self.plain(self.disc).state_dict(),
                "opt": self.opt.state_dict(), "opt_d": self.opt_d.state_dict(), "sched": self.sched.state_dict(),
                "sched_d": self.sched_d.state_dict(), "step": self.step, "rng": self.rng.bit_generator.state,
                "aug": self.aug.get_state(), "torch": torch.get_rng_state(), "log": self.log.__dict__}

    def _restore(self, state: dict) -> None:
        self.plain(self.net).load_state_dict(state["model"])
        self.ema.load_state_dict(state["ema"])
        self.plain(self.disc).load_state_dict(state["disc"])
        self.opt.load_state_dict(state["opt"])
        self.opt_d.load_state_dict(state["opt_d"])
        self.sched.load_state_dict(state["sched"])
        self.sched_d.load_state_dict(state["sched_d"])
        self.step, self.log = state["step"], TrainLog(**state["log"])
        self.rng.bit_generator.state = state["rng"]
        self.aug.set_state(state["aug"])
        torch.set_rng_state(state["torch"])

    def save(self) -> None:
        self._tick()
        if self.checkpoint is not None:
            save_checkpoint(self.checkpoint, self._state())

    def gan_active(self) -> bool:
        return self.cfg.gan_weight > 0 and self.step >= self.cfg.gan_start * self.cfg.steps

    def train_step(self) -> None:
        cfg, batch = self.cfg, self.data.batch(self.rng, self.cfg.batch).to(self.device)
        pred = self.net(batch.source, batch.T)
        loss = rec = self.reconstruction(pred, batch)
        if self.gan_active():
            g = generator_loss(self.disc(pred))
            loss = rec + cfg.gan_weight * adaptive_weight(rec, g, self.plain(self.net).last_layer(), cfg.max_d_weight) * g
        self.opt.zero_grad()
        if torch.isfinite(loss):
            self.accelerator.backward(loss) if self.accelerator else loss.backward()
        grads = [p.grad for p in self.net.parameters() if p.grad is not None]
        if not torch.isfinite(loss) or not all(torch.isfinite(g).all() for g in grads):
            self.log.skipped_nonfinite += 1  # spec §2.4: a non-finite loss or gradient skips the step
        else:
            torch.nn.utils.clip_grad_norm_(self.net.parameters(), cfg.grad_clip)
            self.opt.step()
            self._update_ema()
            self.log.losses.append(loss.item())
        if self.gan_active():
            self._discriminator_step(batch.source, pred.detach())
        self.sched.step()
        self.step += 1

    def reconstruction(self, pred: torch.Tensor, batch) -> torch.Tensor:
        """Masked Charbonnier + SSIM + frozen-feature terms on the supervised pixels only."""
        cfg, mask = self.cfg, batch.mask
        loss = masked_charbonnier(pred, batch.target, mask)
        if cfg.ssim_weight:
            loss = loss + cfg.ssim_weight * masked_ssim_loss(pred, batch.target, mask)
        if cfg.feature_weight and self.features is not None:
            loss = loss + cfg.feature_weight * masked_feature_loss(self.features, pred, batch.target, mask)
        return loss

    def _discriminator_step(self, source: torch.Tensor, fake: torch.Tensor) -> None:
        """Hinge loss: augmented source images are real, predictions fake (spec §2.4)."""
        real, fake = (diff_augment(x.cpu(), self.aug).to(self.device) for x in (source, fake))
        d_loss = hinge_d_loss(self.disc(real), self.disc(fake))
        self.opt_d.zero_grad()
        self.accelerator.backward(d_loss) if self.accelerator else d_loss.backward()
        self.opt_d.step()
        self.sched_d.step()

    @torch.no_grad()
    def _update_ema(self) -> None:
        decay = min(self.cfg.ema_decay, (1 + self.step) / (10 + self.step))
        for e, p in zip(self.ema.parameters(), self.plain(self.net).parameters()):
            e.lerp_(p, 1 - decay)

    def run(self, until: int | None = None, desc: str = "train") -> TrainLog:
        """Train to step `until` (default: all steps), checkpointing as configured."""
        until = self.cfg.steps if until is None else min(until, self.cfg.steps)
        self._clock = time.perf_counter(), time.process_time()
        with progress_bar(total=until, initial=self.step, desc=desc, unit="step") as bar, termination_requests() as stop:
            while self.step < until:
                self.train_step()
                bar.update()
                if stop():  # a staged run's time limit: keep every finished step, then stop
                    self.save()
                    raise ProceedingsError(f"{desc}: stopped by SIGTERM at step {self.step}/{self.cfg.steps}"
                                           + ("; checkpoint saved, run again to resume" if self.checkpoint else ""))
                if self.cfg.checkpoint_every and self.step % self.cfg.checkpoint_every == 0:
                    self.save()
        self.save()
        return self.log

    def _tick(self) -> None:
        """Add the time since the last tick to the log, so a staged (killed and resumed) run counts every piece."""
        wall, cpu = time.perf_counter(), time.process_time()
        self.log.wall_s += wall - self._clock[0]
        self.log.cpu_s += cpu - self._clock[1]
        self._clock = wall, cpu
