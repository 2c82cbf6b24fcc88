"""Training the diffusion view by self-distillation (spec §2.3, inferred: the paper releases no training code).

Per sequence (prompt + the frozen model's own response, length T):
1. AR pre-pass with the frozen model, no gradient: every layer's K/V (detached) and the AR logits;
2. anchors n_j every B tokens from a random offset in the response;
3. one diffusion forward over all M blocks [x_{n_j}, MASK x (B-1)] (M * B queries) with the dual-pass mask
   (`dual_pass_mask`: block j sees AR keys at positions < n_j and its own B keys, nothing else; a view made with
   `first_slot_causal` keeps slot 0 from the block's later keys, as at inference; one made with `first_slot_ar`
   also computes slot 0 with the frozen AR projections, so slot 0 takes no gradient and stays the AR step);
4. loss per slot i = 0..B-2 of block j: cross-entropy against x_{n_j+i+1} plus `kl_weight` x KL(p_AR || q)
   to the AR distribution at the same position (free: the pre-pass computed it), weighted gamma^i.
Departures from the spec, and why: the KL term is on by default (self-distilled labels are the AR argmax,
so the KL adds the AR view's ranking of the other tokens, a denser signal for a short CPU run), and the
slot weights gamma^i favour the early slots, which decide the accepted prefix (a late slot only counts
when every earlier one was accepted).
Gradients reach only the view (q', k', v', o', mask embedding): the base is frozen. AdamW, linear warm-up,
cosine decay (or, `schedule="constant"`, the peak rate held after warm-up: a round-15 probe), gradient
clipping; the state (view, optimiser, scheduler, RNG, step, loss curve) is saved atomically every
`checkpoint_every` steps and on SIGTERM, and `resume` continues it exactly.
The paper path (spec §2.3, GPU scale): `precision="bf16"` computes through Hugging Face Accelerate's mixed
precision (bf16 autocast, fp32 master weights of the view), and `attention="flex"` renders the dual-pass
mask as a FlexAttention BlockMask (`dual_pass_block_mask`) instead of the dense boolean mask that SDPA reads.
"""

from __future__ import annotations

import contextlib
import math
import signal
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Sequence

import torch

from proceedings.core.errors import ProceedingsError
from proceedings.core.runtime import load_checkpoint, save_checkpoint
from proceedings.orthrus.dual_view import DiffusionView, freeze


@dataclass(frozen=True)
class TrainConfig:
    steps: int
    batch: int = 2  # sequences per step
    seq_len: int = 384  # longest sequence trained on (longer ones are cut)
    lr: float = 2e-4  # spec §2.3 laptop default
    warmup: float = 0.02  # fraction of the steps
    clip: float = 1.0
    gamma: float | None = 0.8  # slot weight gamma^i; None: uniform
    kl_weight: float = 1.0
    checkpoint_every: int = 20
    seed: int = 0
    precision: str = "fp32"  # or "bf16": Accelerate mixed precision (bf16 compute, fp32 master weights)
    attention: str = "sdpa"  # or "flex": the dual-pass mask as a FlexAttention BlockMask (GPU: no CPU backward)
    schedule: str = "cosine"  # after the linear warm-up: cosine decay to 0, or "constant" (the peak lr held)


PRECISIONS, ATTENTIONS, SCHEDULES = ("fp32", "bf16"), ("sdpa", "flex"), ("cosine", "constant")
# fields added after round 1 (the paper path in round 2, the schedule in round 15), at the values earlier runs used
ADDED_DEFAULTS = {"precision": "fp32", "attention": "sdpa", "device": "cpu", "schedule": "cosine"}


def stable_settings(config) -> dict:
    """asdict(config), nested, without the fields added after round 1 at their defaults: checkpoints and run
    folders made before those fields existed still match, and resume."""
    def strip(values: dict) -> dict:
        return {k: strip(v) if isinstance(v, dict) else v for k, v in values.items()
                if k not in ADDED_DEFAULTS or ADDED_DEFAULTS[k] != v}

    return strip(asdict(config))


def check_train_config(cfg: TrainConfig, device: torch.device) -> None:
    """Refuse an unknown precision, attention or schedule, FlexAttention training off a GPU, and weights that
    cannot train."""
    if not cfg.lr > 0 or cfg.kl_weight < 0 or (cfg.gamma is not None and not cfg.gamma > 0):
        raise ProceedingsError(f"learning rate {cfg.lr}, KL weight {cfg.kl_weight}, gamma {cfg.gamma}: the learning "
                               "rate and gamma must be positive and the KL weight at least 0")
    if cfg.precision not in PRECISIONS:
        raise ProceedingsError(f"unknown precision '{cfg.precision}'; choose one of: {', '.join(PRECISIONS)}")
    if cfg.schedule not in SCHEDULES:
        raise ProceedingsError(f"unknown schedule '{cfg.schedule}'; choose one of: {', '.join(SCHEDULES)}")
    if cfg.attention not in ATTENTIONS:
        raise ProceedingsError(f"unknown attention '{cfg.attention}'; choose one of: {', '.join(ATTENTIONS)}")
    if cfg.attention == "flex" and device.type != "cuda":
        raise ProceedingsError(f"FlexAttention training needs a CUDA GPU: torch {torch.__version__} has no "
                               f"FlexAttention backward on the {device.type}; train with attention 'sdpa' (a dense "
                               "mask, same rule)")


def precision_context(cfg: TrainConfig, device: torch.device):
    """(autocast, backward): plain fp32, or Hugging Face Accelerate's bf16 mixed precision (bf16 compute, the
    view's fp32 weights as the master copy). Accelerate fixes one precision per process."""
    if cfg.precision == "fp32":
        return contextlib.nullcontext, torch.Tensor.backward
    from accelerate import Accelerator

    accelerator = Accelerator(mixed_precision="bf16", cpu=device.type != "cuda")
    return accelerator.autocast, accelerator.backward


@dataclass
class TrainRecord:
    steps: int = 0
    tokens: int = 0  # sequence tokens through the AR pre-pass
    queries: int = 0  # diffusion queries (M * B per sequence)
    wall_s: float = 0.0
    cpu_s: float = 0.0
    losses: list[float] = field(default_factory=list)
    stopped: bool = False  # True when SIGTERM ended the run (its checkpoint holds the state)


def block_anchors(prompt_len: int, length: int, block_size: int, offset: int) -> torch.Tensor:
    """Anchor positions n_j: every B tokens from prompt_len + offset, each with at least one label after it."""
    return torch.arange(prompt_len + offset, max(length - 1, prompt_len + offset), block_size)


def dual_pass_mask(anchors: torch.Tensor, block_size: int, length: int,
                   first_slot_causal: bool = False) -> torch.Tensor:
    """(M * B, length + M * B) bool: query (j, i) sees AR keys at positions < n_j and every key of block j
    (the official `generate_dual_pass_mask` rule, spec §2.3). With `first_slot_causal` (a departure from the
    paper's bidirectional block, round 17) slot 0 of each block sees only its own key of the block."""
    m = len(anchors)
    block_of_query = torch.arange(m, device=anchors.device).repeat_interleave(block_size)  # (M * B,)
    sees_ar = torch.arange(length, device=anchors.device)[None, :] < anchors[block_of_query][:, None]
    sees_block = block_of_query[:, None] == block_of_query[None, :]
    if first_slot_causal:
        slot = torch.arange(m * block_size, device=anchors.device) % block_size
        sees_block &= ~((slot[:, None] == 0) & (slot[None, :] > 0))
    return torch.cat([sees_ar, sees_block], 1)


def dual_pass_mask_mod(anchors: torch.Tensor, block_size: int, length: int, first_slot_causal: bool = False):
    """The rule of `dual_pass_mask` as a FlexAttention mask_mod(batch, head, query, key) -> bool."""

    def mask_mod(batch, head, query, key):
        block = query // block_size
        sees_ar = (key < length) & (key < anchors[block])
        sees_block = (key >= length) & ((key - length) // block_size == block)
        if first_slot_causal:
            sees_block = sees_block & ((query % block_size != 0) | ((key - length) % block_size == 0))
        return sees_ar | sees_block

    return mask_mod


def dual_pass_block_mask(anchors: torch.Tensor, block_size: int, length: int, first_slot_causal: bool = False):
    """The dual-pass mask as a FlexAttention BlockMask over (M * B) queries and length + M * B keys."""
    from torch.nn.attention.flex_attention import create_block_mask

    queries = len(anchors) * block_size
    return create_block_mask(dual_pass_mask_mod(anchors, block_size, length, first_slot_causal), None, None, queries,
                             length + queries, device=anchors.device)


def slot_weights(block_size: int, gamma: float | None) -> torch.Tensor:
    """w_i for slots 0..B-2 (slot B-1 drafts nothing)."""
    return torch.tensor([1.0 if gamma is None else gamma ** i for i in range(block_size - 1)])


def sequence_loss(base, view: DiffusionView, tokens: torch.Tensor, prompt_len: int, offset: int,
                  cfg: TrainConfig) -> tuple[torch.Tensor, int]:
    """(loss, queries) of one sequence: AR pre-pass, dual-pass mask, one diffusion forward, weighted slot loss."""
    from transformers import DynamicCache

    block = view.block_size
    anchors = block_anchors(prompt_len, len(tokens), block, offset).to(tokens.device)
    if not len(anchors):
        return torch.zeros((), device=tokens.device, requires_grad=True), 0
    cache = DynamicCache()
    with torch.no_grad():
        ar_logits = base(input_ids=tokens[None], cache=cache, use_cache=True).logits[0].float()  # (T, V)
    past = [(layer.keys.detach(), layer.values.detach()) for layer in cache.layers]
    embeddings = view.block_embeddings(base, tokens[anchors], block)
    positions = (anchors[:, None] + torch.arange(block, device=tokens.device)[None]).reshape(-1)  # (M * B,)
    render = dual_pass_block_mask if cfg.attention == "flex" else dual_pass_mask
    mask = render(anchors, block, len(tokens), view.first_slot_causal)
    logits = view(base, embeddings, positions, past, mask, block).logits.float()
    logits = logits.view(len(anchors), block, -1)[:, :-1]  # (M, B-1, V): slot i drafts x_{n+i+1}
    label_at = anchors[:, None] + torch.arange(1, block, device=tokens.device)[None]  # (M, B-1)
    valid = label_at < len(tokens)
    label_at = label_at.clamp(max=len(tokens) - 1)
    log_q = torch.log_softmax(logits, -1)
    ce = -log_q.gather(-1, tokens[label_at][..., None])[..., 0]
    log_p = torch.log_softmax(ar_logits[label_at - 1], -1)  # the AR view's distribution of the same token
    kl = (log_p.exp() * (log_p - log_q)).sum(-1)
    weights = slot_weights(block, cfg.gamma).to(tokens.device)[None].expand_as(ce) * valid
    return ((ce + cfg.kl_weight * kl) * weights).sum() / weights.sum(), len(anchors) * block


class _StopOnSigterm:
    """Within the block, SIGTERM only sets a flag; the loop checkpoints and stops at the end of its step."""

    def __enter__(self):
        self.requested = False
        try:
            self.previous = signal.signal(signal.SIGTERM, self._handler)
        except ValueError:  # not the main thread: no handler can be installed
            self.previous = None
        return self

    def _handler(self, signum, frame) -> None:
        self.requested = True

    def __exit__(self, *exc) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGTERM, self.previous)


def train_view(base, view: DiffusionView, sequences: Sequence[tuple[Sequence[int], int]], cfg: TrainConfig,
               checkpoint: Path | str | None = None, resume: bool = False, stop_at: int | None = None,
               progress: str | None = None) -> TrainRecord:
    """`cfg.steps` AdamW steps on (tokens, prompt_len) sequences in a fixed order; only the view learns.
    With `checkpoint`, the state is saved every `cfg.checkpoint_every` steps, on SIGTERM and at the end;
    `resume` continues from it. `stop_at` ends the run (checkpointed) once that many steps are done in all."""
    from transformers import get_constant_schedule_with_warmup, get_cosine_schedule_with_warmup

    from proceedings.core.progress import progress_bar

    if not sequences:
        raise ProceedingsError("no training sequences")
    device = view.mask_embedding.device
    check_train_config(cfg, device)
    freeze(base)
    params = [p for p in view.parameters()]
    optimizer = torch.optim.AdamW(params, lr=cfg.lr, weight_decay=0.0)
    warmup = max(1, round(cfg.warmup * cfg.steps))
    scheduler = (get_cosine_schedule_with_warmup(optimizer, warmup, cfg.steps) if cfg.schedule == "cosine"
                 else get_constant_schedule_with_warmup(optimizer, warmup))
    generator = torch.Generator().manual_seed(cfg.seed)
    record = TrainRecord()
    state = load_checkpoint(checkpoint) if checkpoint is not None and resume else None
    if state is not None:
        if (state["config"] != stable_settings(cfg) or state["base_hash"] != view.base_hash
                or state.get("first_slot_causal", False) != view.first_slot_causal
                or state.get("first_slot_ar", False) != view.first_slot_ar):
            raise ProceedingsError(f"checkpoint '{checkpoint}' was made with other settings or another base; "
                                   "delete it or run without --resume")
        view.load_state_dict(state["view"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        generator.set_state(state["generator"])
        record = TrainRecord(**state["record"])
    autocast, backward = precision_context(cfg, device)
    rows = [(torch.tensor(list(t)[:cfg.seq_len], device=device), p) for t, p in sequences]
    view.train()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    end = cfg.steps if stop_at is None else min(cfg.steps, stop_at)
    with _StopOnSigterm() as stop:
        for step in progress_bar(range(record.steps, end), desc=progress or "train", disable=progress is None,
                                 unit="step"):
            optimizer.zero_grad(set_to_none=True)
            step_loss = 0.0
            for i in range(cfg.batch):
                tokens, prompt_len = rows[(step * cfg.batch + i) % len(rows)]
                offset = int(torch.randint(view.block_size, (), generator=generator))
                with autocast():
                    loss, queries = sequence_loss(base, view, tokens, prompt_len, offset, cfg)
                backward(loss / cfg.batch)
                step_loss += float(loss.detach()) / cfg.batch
                record.tokens += len(tokens)
                record.queries += queries
            if not math.isfinite(step_loss):
                raise ProceedingsError(f"non-finite loss at step {step}; lower the learning rate (now {cfg.lr})")
            torch.nn.utils.clip_grad_norm_(params, cfg.clip)
            optimizer.step()
            scheduler.step()
            record.steps += 1
            record.losses.append(step_loss)
            if checkpoint is not None and (record.steps % cfg.checkpoint_every == 0 or stop.requested
                                           or record.steps == end):
                record.wall_s += time.perf_counter() - wall0
                record.cpu_s += time.process_time() - cpu0
                wall0, cpu0 = time.perf_counter(), time.process_time()
                save_checkpoint(checkpoint, {"view": view.state_dict(), "optimizer": optimizer.state_dict(),
                                             "scheduler": scheduler.state_dict(), "generator": generator.get_state(),
                                             "record": asdict(record), "config": stable_settings(cfg),
                                             "base_hash": view.base_hash, "first_slot_causal": view.first_slot_causal,
                                             "first_slot_ar": view.first_slot_ar})
            if stop.requested:
                record.stopped = True
                break
    record.wall_s += time.perf_counter() - wall0
    record.cpu_s += time.process_time() - cpu0
    view.eval()
    return record
