"""Training both drafters on the target's own features (self-distillation; spec §2.2-2.4).

Loss per element: KL(p_target || q_draft) over the draft vocabulary, p_target = softmax of the target's
final hidden state through the frozen head rows. Positions whose target token lies outside the draft
vocabulary, and prompt positions, are not trained on.
- EAGLE-3 (`chain_loss`): training-time test, the drafter unrolled on its own hidden states for T steps
  (depth d fed the output of depth d - 1 and the true token), loss weights 0.8^d.
- P-EAGLE (`parallel_loss`): one forward over the COD-sampled elements (depths 0..K-1, mask inputs at
  depths >= 1), per-depth means averaged over depths; optionally partitioned into S segments with the
  gradient accumulated inside the sequence (`elements.partition`).
Both see the same sequences in the same order, with the same optimiser and schedule (AdamW, linear
warm-up, cosine decay, gradient clipping).
"""

from __future__ import annotations

import math
import signal
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Sequence

import torch

from proceedings.core.errors import ProceedingsError
from proceedings.peagle.drafter import Drafter, chain_mask
from proceedings.peagle.elements import Elements, cod_sample, parallel_elements, partition
from proceedings.peagle.target import FeatureSequence, in_vocabulary

TTT_DECAY = 0.8  # EAGLE-3's loss weight per unrolled step


@dataclass(frozen=True)
class TrainConfig:
    steps: int  # optimiser steps; with cpu_seconds, the most steps
    sequences_per_step: int = 4
    lr: float = 3e-4
    warmup: float = 0.02  # fraction of the steps
    clip: float = 0.5
    ttt_steps: int = 7  # EAGLE-3
    partitions: int = 1  # P-EAGLE
    cod_ratio: float = 0.7
    cod_min: float = 0.2
    seed: int = 0
    cpu_seconds: float | None = None  # train for this many process CPU-seconds (drafters matched on compute)


def training_progress(cfg: TrainConfig, step: int, cpu_s: float) -> float:
    """How far training is, 0..1: by steps, or by CPU-seconds spent when the config sets a budget (whichever
    is further); the schedule follows it and training ends at 1."""
    by_steps = step / cfg.steps
    return by_steps if cfg.cpu_seconds is None else max(by_steps, cpu_s / cfg.cpu_seconds)


def learning_rate(cfg: TrainConfig, progress: float) -> float:
    """Linear warm-up over the first `warmup` of training, then cosine decay to 0."""
    warm = max(cfg.warmup, 1 / cfg.steps)
    if progress < warm:
        return cfg.lr * (progress + 1 / cfg.steps) / warm
    return cfg.lr * 0.5 * (1 + math.cos(math.pi * min(1.0, (progress - warm) / max(1e-12, 1 - warm))))


@dataclass
class TrainRecord:
    steps: int = 0
    sequences: int = 0
    tokens: int = 0
    elements: int = 0  # drafter positions computed (recomputed prefixes and unrolled steps included)
    wall_s: float = 0.0
    cpu_s: float = 0.0
    losses: list[float] = field(default_factory=list)
    interrupted: bool = False  # stopped by SIGTERM/SIGINT after checkpointing; run again to resume
    resumed_at: int = 0  # the step this call started from (a checkpoint's; 0: a fresh run)


@dataclass
class TargetDistribution:
    """p_target over the draft vocabulary at every position of one sequence, computed once per sequence (every
    depth and segment indexes it): softmax of the target's final hidden state through the frozen head rows."""

    probs: torch.Tensor  # (L, V_d)
    neg_entropy: torch.Tensor  # (L,) sum_v p log p

    @classmethod
    def of(cls, drafter: Drafter, seq: FeatureSequence) -> "TargetDistribution":
        with torch.no_grad():
            log_p = torch.log_softmax(seq.final_hidden.float() @ drafter.head.T, -1)
            probs = log_p.exp()
            return cls(probs, (probs * log_p).sum(-1))

    def kl(self, logits: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        """KL(p_target || q_draft) per row of the drafter's logits (n, V_d) against the target at `positions` (n,)."""
        return self.neg_entropy[positions] - (self.probs[positions] * torch.log_softmax(logits, -1)).sum(-1)


def parallel_inputs(drafter: Drafter, seq: FeatureSequence, el: Elements) -> tuple[torch.Tensor, torch.Tensor]:
    """fc(features) and the next token's embedding at depth 0; fc(mask_hidden) and the mask embedding deeper."""
    real = el.depths == 0
    mask_hidden, mask_embedding = drafter.mask_inputs(len(el))
    hidden, embeddings = mask_hidden.clone(), mask_embedding.clone()
    hidden[real] = drafter.fc(seq.features[el.anchors[real]].float())
    embeddings[real] = drafter.embed(seq.tokens[el.anchors[real] + 1])
    return hidden, embeddings


def parallel_loss(drafter: Drafter, seq: FeatureSequence, el: Elements,
                  target: TargetDistribution | None = None) -> torch.Tensor:
    """Sum of weight x KL over the elements with a weight (one forward, the precomputed mask)."""
    target = target or TargetDistribution.of(drafter, seq)
    hidden, embeddings = parallel_inputs(drafter, seq, el)
    x, _ = drafter(hidden, embeddings, el.positions, el.mask())
    trained = el.weights > 0
    return (el.weights[trained] * target.kl(drafter.logits(x[trained]), (el.positions + 1)[trained])).sum()


def chain_outputs(drafter: Drafter, seq: FeatureSequence, steps: int):
    """EAGLE-3's training-time test: yields (depth, anchors, residual stream) for depths 0..steps-1; depth d
    is fed depth d-1's output and the true token x_{a+d+1}, and attends by `chain_mask`."""
    length = len(seq.tokens)
    past, keys_a, keys_d, x = None, [], [], None
    for depth in range(steps):
        anchors = torch.arange(length - 1 - depth)
        if not len(anchors):
            return
        hidden = drafter.fc(seq.features[anchors].float()) if depth == 0 else x[:len(anchors)]
        depths = torch.full_like(anchors, depth)
        keys_a.append(anchors)
        keys_d.append(depths)
        mask = chain_mask(anchors, depths, torch.cat(keys_a), torch.cat(keys_d))
        x, kv = drafter(hidden, drafter.embed(seq.tokens[anchors + 1 + depth]), anchors + depth, mask, past)
        past = kv if past is None else [(torch.cat([pk, k], 1), torch.cat([pv, v], 1)) for (pk, pv), (k, v) in zip(past, kv)]
        yield depth, anchors, x


def chain_loss(drafter: Drafter, seq: FeatureSequence, steps: int, valid: torch.Tensor) -> tuple[torch.Tensor, int]:
    """(sum_d 0.8^d mean KL at depth d / sum_d 0.8^d, elements computed)."""
    target, total, weight, elements = TargetDistribution.of(drafter, seq), torch.zeros(()), 0.0, 0
    for depth, anchors, x in chain_outputs(drafter, seq, steps):
        elements += len(anchors)
        keep = valid[anchors + 1 + depth]
        if keep.any():
            total = total + TTT_DECAY ** depth * target.kl(drafter.logits(x[keep]), (anchors + 1 + depth)[keep]).mean()
            weight += TTT_DECAY ** depth
    return total / max(weight, 1e-12), elements


def sequence_loss_backward(drafter: Drafter, seq: FeatureSequence, cfg: TrainConfig, valid: torch.Tensor,
                           generator: torch.Generator, scale: float) -> tuple[float, int]:
    """Forward + backward of one sequence (P-EAGLE: segment by segment); returns (loss, elements)."""
    if drafter.parallel:
        kept = cod_sample(valid, drafter.cfg.k_train, cfg.cod_ratio, cfg.cod_min, generator)
        loss_value, elements, target = 0.0, 0, TargetDistribution.of(drafter, seq)
        for part in partition(parallel_elements(kept, len(seq.tokens)), cfg.partitions):
            loss = parallel_loss(drafter, seq, part, target)
            (loss * scale).backward()
            loss_value += float(loss.detach())
            elements += len(part)
        return loss_value, elements
    loss, elements = chain_loss(drafter, seq, cfg.ttt_steps, valid)
    (loss * scale).backward()
    return float(loss.detach()), elements


class StopOnSignal:
    """While active, SIGTERM and SIGINT only set `requested`: training finishes its step, checkpoints and stops
    (a scheduler's preemption loses at most one step). Handlers are installed in the main thread only."""

    def __enter__(self) -> "StopOnSignal":
        self.requested, self.previous = False, {}
        if threading.current_thread() is threading.main_thread():
            self.previous = {sig: signal.signal(sig, self._request) for sig in (signal.SIGTERM, signal.SIGINT)}
        return self

    def _request(self, signum, frame) -> None:
        self.requested = True

    def __exit__(self, *exc) -> None:
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)


def _save_training(path: Path, step: int, drafter: Drafter, optimizer, generator, record: TrainRecord,
                   cfg: TrainConfig) -> None:
    from proceedings.core.runtime import save_checkpoint

    save_checkpoint(path, {"step": step, "config": asdict(cfg), "drafter_config": drafter.cfg.to_dict(),
                           "drafter": drafter.state_dict(), "optimizer": optimizer.state_dict(),
                           "generator": generator.get_state(),
                           "record": asdict(record)})


def _resume_training(path: Path, drafter: Drafter, optimizer, generator, cfg: TrainConfig) -> tuple[int, TrainRecord]:
    """(first step to run, record so far) from `path`, or (0, a fresh record) when there is no checkpoint yet."""
    from proceedings.core.runtime import load_checkpoint

    state = load_checkpoint(path)
    if state is None:
        return 0, TrainRecord()
    if state["config"] != asdict(cfg) or state["drafter_config"] != drafter.cfg.to_dict():
        raise ProceedingsError(f"checkpoint '{path}' belongs to another training run (drafter or training settings "
                               "differ); delete it or pass another checkpoint path")
    drafter.load_state_dict(state["drafter"])
    optimizer.load_state_dict(state["optimizer"])
    generator.set_state(state["generator"])
    return state["step"], TrainRecord(**{**state["record"], "interrupted": False, "resumed_at": state["step"]})


def train_drafter(drafter: Drafter, sequences: Sequence[FeatureSequence], cfg: TrainConfig,
                  progress: str | None = None, checkpoint: Path | str | None = None,
                  checkpoint_every: int = 50, until: float = 1.0) -> TrainRecord:
    """Optimiser steps over the sequences in a fixed order (the same for every method): `cfg.steps` of them, or
    as many as `cfg.cpu_seconds` of process CPU time buy (then the schedule runs over the CPU-seconds).

    With `checkpoint`, the whole training state (weights, optimiser, COD sampler, record) is saved atomically
    every `checkpoint_every` steps, at the end, and when SIGTERM/SIGINT arrives (after the step in progress;
    the record says `interrupted`); a run with the same path resumes where it stopped and, on a step budget,
    takes exactly the steps an uninterrupted run would have taken. `until` < 1 pauses (checkpointed) once that
    share of the budget is spent: two drafters trained in alternating slices meet the same machine load."""
    from proceedings.core.progress import progress_bar

    if not sequences:
        raise ProceedingsError("no training sequences")
    in_vocab = in_vocabulary(drafter.draft_to_target, drafter.cfg.target_vocab)
    valid = [s.loss_valid(in_vocab) for s in sequences]
    params = drafter.trainable_parameters()
    optimizer = torch.optim.AdamW(params, lr=cfg.lr, weight_decay=0.0)
    generator = torch.Generator().manual_seed(cfg.seed)
    path = None if checkpoint is None else Path(checkpoint)
    step, record = (0, TrainRecord()) if path is None else _resume_training(path, drafter, optimizer, generator, cfg)
    drafter.train()
    wall0, cpu0 = time.perf_counter() - record.wall_s, time.process_time() - record.cpu_s
    with StopOnSignal() as stop, progress_bar(desc=progress or "train", total=None if cfg.cpu_seconds else cfg.steps,
                                              initial=step, unit="step", disable=progress is None) as bar:
        while (done := training_progress(cfg, step, record.cpu_s)) < until:
            for group in optimizer.param_groups:
                group["lr"] = learning_rate(cfg, done)
            _train_step(drafter, sequences, valid, cfg, step, optimizer, generator, record, params)
            record.wall_s, record.cpu_s = time.perf_counter() - wall0, time.process_time() - cpu0
            step += 1
            bar.update()
            finished = training_progress(cfg, step, record.cpu_s) >= until
            if path is not None and (stop.requested or step % checkpoint_every == 0 or finished):
                _save_training(path, step, drafter, optimizer, generator, record, cfg)
            if stop.requested:
                record.interrupted = True
                break
    drafter.eval()
    return record


def _train_step(drafter: Drafter, sequences: Sequence[FeatureSequence], valid: list[torch.Tensor], cfg: TrainConfig,
                step: int, optimizer, generator: torch.Generator, record: TrainRecord, params) -> None:
    """One optimiser step over `cfg.sequences_per_step` sequences (gradient accumulation); a non-finite loss
    stops training before the weights change."""
    ids = [(step * cfg.sequences_per_step + i) % len(sequences) for i in range(cfg.sequences_per_step)]
    optimizer.zero_grad(set_to_none=True)
    step_loss = 0.0
    for i in ids:
        sequence = sequences[i]
        loss, elements = sequence_loss_backward(drafter, sequence, cfg, valid[i], generator, 1 / len(ids))
        step_loss += loss / len(ids)
        record.elements += elements
        record.tokens += len(sequence.tokens)
    if not math.isfinite(step_loss):
        raise ProceedingsError(f"non-finite loss at step {step} (sequences {ids}); the drafter keeps its last "
                               "good weights")
    torch.nn.utils.clip_grad_norm_(params, cfg.clip)
    optimizer.step()
    record.steps += 1
    record.sequences += len(ids)
    record.losses.append(step_loss)


def depth_accuracy(drafter: Drafter, sequences: Sequence[FeatureSequence], depths: int) -> list[float]:
    """Held-out top-1 agreement with the target's token, per depth 0..depths-1, at response positions whose
    target token is in the draft vocabulary (EAGLE-3 unrolled on its own hidden states, P-EAGLE with mask
    inputs at every anchor)."""
    in_vocab = in_vocabulary(drafter.draft_to_target, drafter.cfg.target_vocab)
    hits, counts = [0] * depths, [0] * depths
    with torch.no_grad():
        for seq in sequences:
            valid = seq.loss_valid(in_vocab)
            if drafter.parallel:
                kept = cod_sample(valid, depths, 1.0, 1.0)
                el = parallel_elements(kept, len(seq.tokens))
                hidden, embeddings = parallel_inputs(drafter, seq, el)
                x, _ = drafter(hidden, embeddings, el.positions, el.mask())
                outputs = [(d, el.anchors[el.depths == d], x[el.depths == d]) for d in range(depths)]
            else:
                outputs = list(chain_outputs(drafter, seq, depths))
            for depth, anchors, x in outputs:
                target = anchors + 1 + depth
                keep = valid[target]
                guess = drafter.draft_to_target[drafter.logits(x[keep]).argmax(-1)]
                hits[depth] += int((guess == seq.argmax[target[keep]]).sum())
                counts[depth] += int(keep.sum())
    return [h / c if c else 0.0 for h, c in zip(hits, counts)]
