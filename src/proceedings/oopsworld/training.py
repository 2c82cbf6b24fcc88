"""Training: teacher forcing (teacher = B1, B2) and OopsWorld's decoupled distillation (spec §2.5).

Teacher forcing: GT history -> the segment's K frames, change-weighted L1, conditioned on one prompt
surface. Decoupled distillation: from a GT start, the student rolls itself out for r segments (no
gradient) on operation tokens, then generates one more chunk with gradient; its target is the
frozen teacher's prediction *on the student's own history* with the target-scene tokens, plus a
small GT term. The dynamics curriculum draws segments stage by stage: single low-dynamic edits,
single high-dynamic ops, composites, then long rollouts. Every loop checkpoints atomically
(model, optimiser, schedule, RNG, step) and resumes exactly.
"""

from __future__ import annotations

import copy
import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.core.progress import progress_bar
from proceedings.core.runtime import load_checkpoint, save_checkpoint
from proceedings.core.staging import Paused, past_deadline, pause_message
from proceedings.oopsworld.data import Episode
from proceedings.oopsworld.encoders import TokenBank, minilm, op_words, scene_words, structured_bank, text_bank
from proceedings.oopsworld.generator import ChunkGenerator, change_weighted_l1, changed_colour_l1
from proceedings.oopsworld.layer_targets import LayerTargets, layer_loss, layer_targets

log = logging.getLogger(__name__)
MAX_SKIPS = 50


@dataclass
class SegmentData:
    """Episodes flattened to segments: frames, both surfaces' tokens, and each segment's program kind."""

    frames: np.ndarray  # (E, 2 + S*K, H, W, 3) uint8
    segments: int
    frames_per_segment: int
    implicit: TokenBank
    explicit: TokenBank
    depth: np.ndarray  # (E*S,) ops in the boundary's program
    dynamics: np.ndarray  # (E*S,) the program's dynamics level
    layers: LayerTargets  # (E*S) the world's layer split and motions (round 19's layer supervision)

    @property
    def count(self) -> int:
        return len(self.depth)

    def chunk(self, ids: np.ndarray, offset: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
        """GT history (B, 2, 3, H, W) and target (B, K, 3, H, W) of segments `ids` (+ offset segments)."""
        e, s = ids // self.segments, ids % self.segments + offset
        k = self.frames_per_segment
        start = 2 + s * k
        idx = start[:, None] + np.arange(-2, k)[None]
        clip = torch.from_numpy(self.frames[e[:, None], idx]).permute(0, 1, 4, 2, 3).float() / 255.0
        return clip[:, :2], clip[:, 2:]

    def tokens(self, surface: str, ids: np.ndarray):
        return (self.implicit if surface == "implicit" else self.explicit).take(ids)


def segment_data(episodes: list[Episode], encoder: str) -> SegmentData:
    """Build the tokens of both surfaces for every segment of `episodes`."""
    s = episodes[0].segments
    if encoder == "structured":
        implicit = structured_bank([op_words(p, ep.scenes[i]) for ep in episodes for i, p in enumerate(ep.programs)])
        explicit = structured_bank([scene_words(p.apply(ep.scenes[i])) for ep in episodes
                                    for i, p in enumerate(ep.programs)])
    elif encoder == "text":
        implicit = text_bank([t for ep in episodes for t in ep.implicit], minilm())
        explicit = text_bank([t for ep in episodes for t in ep.explicit], minilm())
    else:
        raise ProceedingsError(f"unknown encoder '{encoder}'; use 'structured' or 'text'")
    return SegmentData(np.stack([ep.frames for ep in episodes]), s, episodes[0].programs[0].frames, implicit, explicit,
                       np.array([len(p.ops) for ep in episodes for p in ep.programs]),
                       np.array([p.dynamics for ep in episodes for p in ep.programs]),
                       layer_targets(episodes, episodes[0].frames.shape[1]))


@dataclass(frozen=True)
class TrainConfig:
    steps: int = 60
    batch: int = 16
    lr: float = 1e-3  # AdamW, cosine decay (spec §5)
    change_weight: float = 4.0
    end_weight: float = 0.5  # share of the loss on the chunk's end state (the frame the probes read)
    colour_weight: float = 0.0  # > 0: + this x the end head's colour L1 inside the GT changed region (round 18)
    layer_weight: float = 0.0  # > 0: + this x the object layers' loss against the world's split and motions (r19)
    checkpoint_every: int = 100
    seed: int = 0


# ---- the loop ----------------------------------------------------------------------------------

def _loop(model: ChunkGenerator, config: TrainConfig, step_fn, checkpoint: Path | None, desc: str,
          until: int | None = None, deadline: float | None = None) -> list[float]:
    """Run `step_fn(rng, step) -> loss` for config.steps steps with checkpoint/resume; `until` stops early
    at that step, and past `deadline` (time.time()) the loop checkpoints and raises Paused (time-boxed
    pieces of a longer run; the next call resumes from the checkpoint)."""
    opt = torch.optim.AdamW(model.parameters(), lr=config.lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, config.steps)
    rng = np.random.default_rng(config.seed)
    torch.manual_seed(config.seed)
    start, losses, skips = 0, [], 0
    state = load_checkpoint(checkpoint) if checkpoint else None
    if state is not None:
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        sched.load_state_dict(state["schedule"])
        rng.bit_generator.state = state["numpy"]
        torch.set_rng_state(state["torch"])
        start, losses = state["step"], state["losses"]
        log.info("%s: resumed at step %d", desc, start)
    model.train()
    stop = config.steps if until is None else min(until, config.steps)
    for step in progress_bar(range(start, stop), desc=desc, total=config.steps, initial=start):
        loss = step_fn(rng, step)
        if not torch.isfinite(loss):
            skips += 1
            if skips >= MAX_SKIPS:
                raise ProceedingsError(f"{desc}: {MAX_SKIPS} consecutive non-finite losses at step {step}; lower the lr")
            opt.zero_grad()
            continue
        skips = 0
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        losses.append(float(loss.detach()))
        done = step + 1
        late = checkpoint is not None and past_deadline(deadline) and done < stop
        if checkpoint and (late or done % config.checkpoint_every == 0 or done == stop):
            save_checkpoint(checkpoint, {"model": model.state_dict(), "optimizer": opt.state_dict(),
                                         "schedule": sched.state_dict(), "numpy": rng.bit_generator.state,
                                         "torch": torch.get_rng_state(), "step": done, "losses": losses})
        if late:
            raise Paused(pause_message(desc, done, config.steps))
    model.eval()
    return losses


def train_forcing(model: ChunkGenerator, data: SegmentData, surface: str, config: TrainConfig,
                  checkpoint: Path | None = None, desc: str = "teacher forcing", until: int | None = None,
                  deadline: float | None = None) -> list[float]:
    """Teacher forcing on GT history with one prompt surface (the teacher/B1: explicit; B2: implicit)."""
    def step(rng: np.random.Generator, _: int) -> torch.Tensor:
        ids = rng.integers(0, data.count, config.batch)
        history, target = data.chunk(ids)
        values, mask = data.tokens(surface, ids)
        return forcing_loss(model, history, target, values, mask, config,
                            data.layers.take(ids) if config.layer_weight else None)

    return _loop(model, config, step, checkpoint, desc, until, deadline)


def forcing_loss(model: ChunkGenerator, history: torch.Tensor, target: torch.Tensor, values: torch.Tensor,
                 mask: torch.Tensor, config: TrainConfig, layers: tuple | None = None) -> torch.Tensor:
    """Change-weighted L1 of the chunk to GT; with `colour_weight`, plus the end head's colour L1 inside the GT
    changed region (round 18: the colour learns what to paint there before its mask opens); with `layer_weight`,
    plus the object layers' loss against `layers` (labels, shifts, present; `LayerTargets.take`, round 19)."""
    last = history[:, -1]
    out = model(history, values, mask, with_colour=bool(config.colour_weight), with_layers=bool(config.layer_weight))
    pred, extras = (out[0], list(out[1:])) if isinstance(out, tuple) else (out, [])
    loss = change_weighted_l1(pred, target, last, config.change_weight, config.end_weight)
    if config.colour_weight:
        loss = loss + config.colour_weight * changed_colour_l1(extras.pop(0), target[:, -1], last)
    if config.layer_weight:
        loss = loss + config.layer_weight * layer_loss(*extras.pop(0), *layers)
    return loss


# ---- decoupled distillation ----------------------------------------------------------------------

def curriculum_stage(step: int, steps: int, curriculum: bool) -> int:
    """Dynamics curriculum: 4 stages by step fraction 0.25 each (spec §2.5); 4 (everything) without it."""
    return min(4, 1 + 4 * step // max(steps, 1)) if curriculum else 4


def stage_pool(data: SegmentData, stage: int) -> np.ndarray:
    """Segments a stage draws from: 1 single low-dynamic, 2 single high-dynamic, 3 composites, 4 all."""
    keep = {1: (data.depth == 1) & (data.dynamics <= 1), 2: (data.depth == 1) & (data.dynamics == 2),
            3: data.depth >= 2, 4: np.ones(data.count, bool)}[stage]
    pool = np.flatnonzero(keep)
    return pool if len(pool) else np.arange(data.count)


@dataclass(frozen=True)
class DistillConfig:
    max_rollout: int = 3  # self-rollout segments before the graded chunk, in the last stage
    lambda_gt: float = 0.2  # the small GT term (spec §2.5)
    curriculum: bool = True  # False: every stage's segments from the first step (the no-curriculum ablation)
    teacher_surface: str = "explicit"  # the teacher's tokens; "implicit" = the coupled-teacher ablation (spec §2.5)


def train_distill(student: ChunkGenerator, teacher: ChunkGenerator, data: SegmentData, config: TrainConfig,
                  distill: DistillConfig = DistillConfig(), checkpoint: Path | None = None,
                  desc: str = "decoupled distillation", until: int | None = None,
                  deadline: float | None = None) -> list[float]:
    """OopsWorld: student on operation tokens + its own history, regressed to the frozen teacher's
    prediction on that same history with the target-scene tokens, plus lambda_gt * GT."""
    teacher = teacher.eval()
    for p in teacher.parameters():
        p.requires_grad_(False)

    stages_seen: list[int] = []

    def step(rng: np.random.Generator, i: int) -> torch.Tensor:
        stage = curriculum_stage(i, config.steps, distill.curriculum)
        if not stages_seen or stages_seen[-1] != stage:
            stages_seen.append(stage)
            log.info("%s: step %d, curriculum stage %d", desc, i, stage)
        r = int(rng.integers(0, (distill.max_rollout if stage == 4 else 1) + 1))
        pool = stage_pool(data, stage)
        pool = pool[pool % data.segments >= r]
        if not len(pool):
            r, pool = 0, stage_pool(data, stage)
        ids = rng.choice(pool, config.batch)
        history, _ = data.chunk(ids, offset=-r)
        with torch.no_grad():  # self-rollout from the GT start r segments back
            for back in range(r, 0, -1):
                values, mask = data.tokens("implicit", ids - back)
                history = student(history, values, mask).clamp(0, 1)[:, -2:]
        _, target = data.chunk(ids)
        values, mask = data.tokens("implicit", ids)
        pred = student(history, values, mask)
        with torch.no_grad():
            t_values, t_mask = data.tokens(distill.teacher_surface, ids)
            teacher_pred = teacher(history, t_values, t_mask)
        last = history[:, -1]
        return (change_weighted_l1(pred, teacher_pred, last, config.change_weight, config.end_weight)
                + distill.lambda_gt * change_weighted_l1(pred, target, last, config.change_weight, config.end_weight))

    return _loop(student, config, step, checkpoint, desc, until, deadline)


def snapshot(model: ChunkGenerator) -> ChunkGenerator:
    return copy.deepcopy(model)
