"""One fine-tuning recipe for every task (spec §2.2): full (tiny random model) or LoRA + added-token rows.

LoRA r = 8, α = 16 on q, k, v, o, gate, up, down; the added tokens' embedding rows are trainable through
PEFT's trainable tokens (their own learning rate); AdamW with a cosine schedule. Batches are drawn from a
generator seeded by (seed, step), so a run resumed from its checkpoint sees exactly the batches it would
have seen. A batch may run as micro-batches (gradient accumulation): the same gradient up to float rounding,
in a fraction of the memory, which long sequences (the digits cell format) need on a CPU.
"""

from __future__ import annotations

import copy
import math
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import torch

from proceedings.core.progress import progress_bar
from proceedings.core.runtime import load_checkpoint, save_checkpoint

LORA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


@dataclass(frozen=True)
class Recipe:
    steps: int = 150
    batch: int = 32
    lr: float = 2e-4  # LoRA (or every weight of a full fine-tune)
    new_row_lr: float = 1e-3  # the added tokens' embedding rows (LoRA only)
    lora_r: int | None = 8  # None: full fine-tune
    lora_alpha: int = 16
    warmup_steps: int = 10
    weight_decay: float = 0.0
    seed: int = 0
    checkpoint_every: int = 25

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class TrainLog:
    steps: int = 0
    tokens: int = 0
    losses: list[float] = field(default_factory=list)
    wall_s: float = 0.0
    cpu_s: float = 0.0

    @property
    def s_per_step(self) -> float:
        return self.wall_s / max(self.steps, 1)


def _batch(sequences: list[list[int]], recipe: Recipe, step: int, pad_id: int) -> dict[str, torch.Tensor]:
    """The step's batch: padded ids, attention mask, labels (-100 on padding)."""
    generator = torch.Generator().manual_seed(recipe.seed * 1_000_003 + step)
    picks = torch.randint(len(sequences), (recipe.batch,), generator=generator).tolist()
    width = max(len(sequences[i]) for i in picks)
    ids = torch.full((recipe.batch, width), pad_id)
    mask = torch.zeros((recipe.batch, width), dtype=torch.long)
    for row, i in enumerate(picks):
        ids[row, :len(sequences[i])] = torch.tensor(sequences[i])
        mask[row, :len(sequences[i])] = 1
    return {"input_ids": ids, "attention_mask": mask, "labels": ids.masked_fill(mask == 0, -100)}


def _accumulate(model, batch: dict[str, torch.Tensor], micro: int | None) -> float:
    """Forward and backward of one batch, whole or in micro-batches of `micro` sequences, each cut to its own
    longest sequence and its mean loss weighted by its share of the batch's predicted tokens, so the gradients
    sum to the whole batch's mean-loss gradient. Returns the batch's loss."""
    size = batch["input_ids"].shape[0]
    if not micro or micro >= size:
        loss = model(**batch).loss
        loss.backward()
        return float(loss.detach())
    predicted = lambda part: int((part["labels"][:, 1:] != -100).sum())  # noqa: E731  (labels shift by one)
    total, value = predicted(batch), 0.0
    for start in range(0, size, micro):
        part = {k: v[start:start + micro] for k, v in batch.items()}
        width = int(part["attention_mask"].sum(1).max())  # sequences are left-aligned: the rest is padding
        part = {k: v[:, :width] for k, v in part.items()}
        loss = model(**part).loss * (predicted(part) / total)
        loss.backward()
        value += float(loss.detach())
    return value


def trainable_model(base: torch.nn.Module, recipe: Recipe, new_ids: list[int] | None = None):
    """A copy of the base to train: every weight (full) or a PEFT LoRA model with trainable added-token rows."""
    model = copy.deepcopy(base)
    if recipe.lora_r is None:
        return model
    from peft import LoraConfig, get_peft_model

    config = LoraConfig(r=recipe.lora_r, lora_alpha=recipe.lora_alpha, lora_dropout=0.0,
                        target_modules=list(LORA_TARGETS),
                        trainable_token_indices={"embed_tokens": list(new_ids or [])} if new_ids else None)
    return get_peft_model(model, config)


def _optimizer(model: torch.nn.Module, recipe: Recipe) -> torch.optim.Optimizer:
    params = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    rows = [p for n, p in params if "trainable_tokens" in n]
    rest = [p for n, p in params if "trainable_tokens" not in n]
    groups = [{"params": rest, "lr": recipe.lr}] + ([{"params": rows, "lr": recipe.new_row_lr}] if rows else [])
    return torch.optim.AdamW(groups, weight_decay=recipe.weight_decay)


def _schedule(recipe: Recipe):
    def factor(step: int) -> float:  # linear warm-up, then cosine to 0
        if step < recipe.warmup_steps:
            return (step + 1) / recipe.warmup_steps
        progress = (step - recipe.warmup_steps) / max(1, recipe.steps - recipe.warmup_steps)
        return 0.5 * (1 + math.cos(math.pi * min(progress, 1.0)))
    return factor


def finetune(base: torch.nn.Module, sequences: list[list[int]], recipe: Recipe, pad_id: int,
             new_ids: list[int] | None = None, checkpoint: Path | str | None = None, desc: str = "fine-tune",
             micro_batch: int | None = None):
    """Train a copy of `base` on token-id sequences (`micro_batch` sequences per forward pass, default the whole
    batch); resumes from `checkpoint` when it exists.

    Returns (model, TrainLog); the model is the PEFT model for LoRA recipes.
    """
    model = trainable_model(base, recipe, new_ids)
    model.train()
    optimizer = _optimizer(model, recipe)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, _schedule(recipe))
    log, start = TrainLog(), 0
    state = load_checkpoint(checkpoint) if checkpoint else None
    if state is not None:
        model.load_state_dict(state["trainable"], strict=False)
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        log, start = TrainLog(**state["log"]), state["step"]
    trainable = {n for n, p in model.named_parameters() if p.requires_grad}
    wall0, cpu0 = time.perf_counter(), time.process_time()
    with progress_bar(total=recipe.steps, desc=desc, unit="step", initial=start) as bar:
        for step in range(start, recipe.steps):
            batch = _batch(sequences, recipe, step, pad_id)
            loss = _accumulate(model, batch, micro_batch)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
            log.steps, log.tokens = step + 1, log.tokens + int(batch["attention_mask"].sum())
            log.losses.append(loss)
            bar.update()
            if checkpoint and ((step + 1) % recipe.checkpoint_every == 0 or step + 1 == recipe.steps):
                so_far = replace(log, wall_s=log.wall_s + time.perf_counter() - wall0,
                                 cpu_s=log.cpu_s + time.process_time() - cpu0)
                save_checkpoint(checkpoint, {"trainable": {n: p.detach() for n, p in model.named_parameters() if n in trainable},
                                             "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
                                             "step": step + 1, "log": asdict(so_far)})
    log.wall_s += time.perf_counter() - wall0
    log.cpu_s += time.process_time() - cpu0
    model.eval()
    return model, log
