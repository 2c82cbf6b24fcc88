"""Training and sampling the layout-to-image model by flow matching (spec §2.3, §7).

Rectified flow: x_t = (1 - t) x + t eps, t ~ U(0, 1), the network regresses v = eps - x; sampling runs
Euler steps from t = 1 (noise) to 0. Classifier-free guidance: the layout is dropped from 10 % of
training examples, and at sampling v = v_blind + w (v_layout - v_blind).

Exact resume: the batch and the noise of step s are pure functions of (seed, s), and a checkpoint holds
model, EMA, optimiser, step and losses (plus the RNG states), so a run stopped at step 20 and resumed
equals an uninterrupted one.
"""

from __future__ import annotations

import copy
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch

from proceedings.core.progress import progress_bar
from proceedings.core.runtime import load_checkpoint, restore_rng_state, rng_state, save_checkpoint
from proceedings.overlay.l2i import LayoutUNet, ModelConfig


@dataclass
class LayoutSet:
    """Training or benchmark tensors: images in [-1, 1] and up to K layout tokens per image."""

    images: torch.Tensor  # (N, 3, H, W)
    text: torch.Tensor  # (N, K, text_dim)
    boxes: torch.Tensor  # (N, K, 4) normalised xyxy
    present: torch.Tensor  # (N, K) bool

    def __len__(self) -> int:
        return len(self.images)

    def take(self, index) -> "LayoutSet":
        return LayoutSet(self.images[index], self.text[index], self.boxes[index], self.present[index])


@dataclass(frozen=True)
class TrainConfig:
    steps: int = 150
    batch: int = 32
    lr: float = 2e-4  # AdamW, spec §5 E2
    weight_decay: float = 0.0
    ema: float = 0.999
    grad_clip: float = 1.0
    drop_layout: float = 0.1  # classifier-free guidance
    seed: int = 0
    checkpoint_every: int = 50
    snapshots: tuple[float, ...] = (0.25, 0.5, 0.75, 1.0)  # EMA weights kept for the convergence curve


@dataclass
class TrainLog:
    losses: list[float] = field(default_factory=list)
    wall_s: float = 0.0
    cpu_s: float = 0.0
    snapshots: dict[int, dict] = field(default_factory=dict)  # step -> EMA state_dict

    def summary(self) -> dict:
        return {"first_losses": self.losses[:10], "last_losses": self.losses[-10:], "steps": len(self.losses),
                "wall_s": self.wall_s, "cpu_s": self.cpu_s}


def _batch(data: LayoutSet, config: TrainConfig, step: int):
    """The examples, times, noise and layout drop of one step: a pure function of (seed, step)."""
    rng = np.random.default_rng([config.seed, step])
    index = torch.as_tensor(rng.choice(len(data), size=config.batch, replace=len(data) < config.batch))
    part = data.take(index)
    generator = torch.Generator().manual_seed(int(rng.integers(2 ** 62)))
    t = torch.rand(config.batch, generator=generator)
    noise = torch.randn(part.images.shape, generator=generator)
    keep = torch.rand(config.batch, generator=generator) >= config.drop_layout
    return part, t, noise, part.present & keep[:, None]


def flow_loss(model: LayoutUNet, part: LayoutSet, t: torch.Tensor, noise: torch.Tensor, present: torch.Tensor) -> torch.Tensor:
    """|| v_theta(x_t, t) - (eps - x) ||^2 with x_t = (1 - t) x + t eps."""
    x = part.images
    x_t = (1 - t)[:, None, None, None] * x + t[:, None, None, None] * noise
    return ((model(x_t, t, part.text, part.boxes, present) - (noise - x)) ** 2).mean()


def _ema_update(ema: LayoutUNet, model: LayoutUNet, decay: float, step: int) -> None:
    d = min(decay, (1 + step) / (10 + step))  # warm-up: early EMA follows the model
    with torch.no_grad():
        for e, p in zip(ema.parameters(), model.parameters()):
            e.mul_(d).add_(p.detach(), alpha=1 - d)


def train(data: LayoutSet, model_config: ModelConfig, config: TrainConfig, checkpoint: Path | None = None,
          stop_at: int | None = None, desc: str = "train l2i", deadline: float | None = None) -> tuple[LayoutUNet, TrainLog]:
    """Train (or resume from `checkpoint`) to `config.steps`; `stop_at` ends early, as a kill would, and so
    does passing the `deadline` (a time.perf_counter() value; checkpointed, for staged runs). Wall and CPU
    seconds add up over resumed calls."""
    torch.manual_seed(config.seed)
    model = LayoutUNet(model_config)
    ema = copy.deepcopy(model).requires_grad_(False)
    optimiser = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    log, start = TrainLog(), 0
    state = load_checkpoint(checkpoint) if checkpoint else None
    if state is not None:
        model.load_state_dict(state["model"])
        ema.load_state_dict(state["ema"])
        optimiser.load_state_dict(state["optimiser"])
        restore_rng_state(state["rng"])
        log.losses, log.snapshots, start = state["losses"], state["snapshots"], state["step"]
        log.wall_s, log.cpu_s = state.get("wall_s", 0.0), state.get("cpu_s", 0.0)
    marks = {max(1, round(f * config.steps)) for f in config.snapshots}
    end = min(config.steps, stop_at or config.steps)
    t0, c0 = time.perf_counter() - log.wall_s, time.process_time() - log.cpu_s

    def save(step: int) -> None:
        save_checkpoint(checkpoint, {"model": model.state_dict(), "ema": ema.state_dict(),
                                     "optimiser": optimiser.state_dict(), "rng": rng_state(), "losses": log.losses,
                                     "snapshots": log.snapshots, "step": step, "config": asdict(config),
                                     "wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0})

    with progress_bar(total=config.steps, initial=start, desc=desc, unit="step") as bar:
        for step in range(start, end):
            if deadline is not None and time.perf_counter() > deadline:
                if checkpoint and step > start:
                    save(step)
                break
            loss = flow_loss(model, *_batch(data, config, step))
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
            optimiser.step()
            _ema_update(ema, model, config.ema, step)
            log.losses.append(loss.item())
            if step + 1 in marks:
                log.snapshots[step + 1] = copy.deepcopy(ema.state_dict())
            if checkpoint and ((step + 1) % config.checkpoint_every == 0 or step + 1 == end):
                save(step + 1)
            bar.update()
    log.wall_s, log.cpu_s = time.perf_counter() - t0, time.process_time() - c0
    return ema, log


@torch.no_grad()
def sample(model: LayoutUNet, layouts: LayoutSet, steps: int = 20, guidance: float = 2.0, seed: int = 0,
           blind: bool = False, batch: int = 128) -> torch.Tensor:
    """Images (N, 3, H, W) in [-1, 1] for the layouts (their images give only the shape); `blind` drops
    every token (the layout-blind control)."""
    model.eval()
    generator = torch.Generator().manual_seed(seed)
    out = []
    for start in range(0, len(layouts), batch):
        part = layouts.take(slice(start, start + batch))
        x = torch.randn(part.images.shape, generator=generator)
        present = torch.zeros_like(part.present) if blind else part.present
        for k in range(steps):
            t = torch.full((len(x),), 1.0 - k / steps)
            v = model(x, t, part.text, part.boxes, present)
            if guidance != 1.0 and not blind:
                v_blind = model(x, t, part.text, part.boxes, torch.zeros_like(present))
                v = v_blind + guidance * (v - v_blind)
            x = x - v / steps
        out.append(x.clamp(-1, 1))
    return torch.cat(out)
