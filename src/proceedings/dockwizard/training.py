"""Training and sampling: a plain AdamW loop with checkpoints, `--resume` and a NaN guard."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from pathlib import Path

import torch

from proceedings.core.errors import ProceedingsError
from proceedings.core.progress import progress_bar
from proceedings.core.runtime import load_checkpoint, save_checkpoint, seed_everything
from proceedings.dockwizard.data import Sample
from proceedings.dockwizard.features import Featurizer
from proceedings.dockwizard.model import DockWizard, ModelConfig


@dataclass
class TrainConfig:
    steps: int = 150
    batch: int = 8
    lr: float = 2e-3
    seed: int = 0
    checkpoint_every: int = 200


@dataclass
class Trained:
    model: DockWizard
    featurizer: Featurizer
    losses: list[float]
    steps_per_s: float
    wall_s: float = 0.0  # training time summed over the pieces of a resumed run
    cpu_s: float = 0.0


def train(samples: list[Sample], model_config: ModelConfig, train_config: TrainConfig, docking: str = "masked",
          checkpoint: Path | None = None, desc: str = "train") -> Trained:
    """Train one arm; the batch order depends only on the seed, so matched arms see the same batches."""
    began = (time.perf_counter(), time.process_time())
    seed_everything(train_config.seed)
    featurizer = Featurizer(docking)
    featurizer.warm(samples)
    model = DockWizard(model_config)
    optimizer = torch.optim.AdamW(model.parameters(), lr=train_config.lr, weight_decay=0.01)
    order = random.Random(train_config.seed)
    batches = [order.sample(samples, min(train_config.batch, len(samples))) for _ in range(train_config.steps)]
    start, losses, spent = 0, [], (0.0, 0.0)  # spent: (wall, CPU) seconds of earlier pieces
    state = load_checkpoint(checkpoint) if checkpoint else None
    if state is not None:
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start, losses, spent = state["step"], state["losses"], tuple(state.get("spent", spent))
    model.train()

    def elapsed() -> tuple[float, float]:
        return spent[0] + time.perf_counter() - began[0], spent[1] + time.process_time() - began[1]
    for step in progress_bar(range(start, train_config.steps), desc=desc, total=train_config.steps, initial=start):
        loss = model.loss(featurizer.batch(batches[step]))
        if not torch.isfinite(loss):
            raise ProceedingsError(f"{desc}: loss became {loss.item()} at step {step}; lower the learning rate")
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())
        if checkpoint and (step + 1) % train_config.checkpoint_every == 0:
            save_checkpoint(checkpoint, {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                                         "step": step + 1, "losses": losses, "spent": elapsed()})
    wall_s, cpu_s = elapsed()
    return Trained(model.eval(), featurizer, losses, train_config.steps / max(wall_s, 1e-9), wall_s, cpu_s)


def sample_designs(trained: Trained, conditions: list[Sample], n: int, temperature: float, top_p: float,
                   seed: int, docking_texts: list[str] | None = None) -> list[list[str]]:
    """`n` pocket sequences per condition, from one generator seeded by `seed` (paired across arms)."""
    generator = torch.Generator().manual_seed(seed)
    batch = trained.featurizer.batch(conditions, docking_texts)
    lengths = [len(c.pocket) for c in conditions]
    rounds = [trained.model.generate(batch, lengths, temperature, top_p, generator) for _ in range(n)]
    return [[r[i] for r in rounds] for i in range(len(conditions))]
