"""The four training arms on one loop: SFT, OPD, rejection fine-tuning, and RWOPD (spec §2.2, §2.4).

Every arm draws the same prompts and samples the same number of student rollouts per step (the
issue's equal-generation budget); what differs is the loss:
  - `sft`:   cross-entropy on the reference SVA (token mimicry; rollouts only logged);
  - `opd`:   reverse KL  sum_v pi_s(v) (log pi_s(v) - log pi_T(v))  on student rollouts, no verifier;
  - `rft`:   cross-entropy on the student's own rollouts that the PEC passes (verifier, no teacher);
  - `rwopd`: on rollouts with reward r >= r_min, weight w = clip(r / mean r_kept, 0, w_max) and
             forward KL  sum_v pi_T(v) (log pi_T(v) - log pi_s(v))  at every response token
             (paper abstract; spec §2.2 step 6: dense teacher supervision on verifier-passable
             student prefixes); a prompt with no passable rollout gets one passing teacher
             rollout when the teacher finds one (spec §2.2 step 4, `fallback_teacher`).
RWOPD's three design choices — the reward filter, the forward KL, the teacher fallback — are
`Switches`; the spec's ablations (§2.4) train the `rwopd` arm with one of them off.
Training checkpoints atomically every `checkpoint_every` steps (model, optimiser, RNG, log) and
resumes from the last checkpoint.
"""

from __future__ import annotations

import logging
import random
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from proceedings.core.errors import ProceedingsError
from proceedings.core.runtime import load_checkpoint, restore_rng_state, rng_state, save_checkpoint, seed_everything
from proceedings.rwopd.harness import VerdictCache
from proceedings.rwopd.policy import completion_logprobs, encode_rollouts, sample, supervised_batch
from proceedings.rwopd.prompting import format_prompt, target_text

log = logging.getLogger(__name__)
METHODS = ("sft", "opd", "rft", "rwopd")


@dataclass
class ArmConfig:
    steps: int = 40
    batch_prompts: int = 8  # B
    rollouts: int = 4  # G per prompt
    max_new_tokens: int = 48
    lr: float = 1e-4
    temperature: float = 0.7  # rollout temperature (issue 15; spec §2.2 step 1 says 1.0)
    rho: float = 0.5  # reward of a one-way implication
    r_min: float = 0.5  # verifier-passable threshold
    w_max: float = 4.0
    checkpoint_every: int = 10
    fallback_teacher: bool = True  # rwopd: a prompt without a passable rollout gets a passing teacher rollout
    fallback_tries: int = 4  # teacher samples tried per such prompt (spec §2.2 step 4: bounded retries)


@dataclass(frozen=True)
class Switches:
    """Which of RWOPD's design choices the `rwopd` arm uses (all on: the method; spec §2.4 ablations).

    - `reward_filter`: train only on rollouts with reward >= r_min, weighted by normalised reward; off:
      every rollout with weight 1 (the weights r / mean r would zero exactly the rows the filter drops,
      so without the filter they are dropped too: forward-KL on-policy distillation, no verifier);
    - `forward_kl`: KL(pi_T || pi_s), mass-covering; off: reverse KL(pi_s || pi_T), OPD's mode-seeking one;
    - `teacher_fallback`: the passing teacher rollout for a prompt with none (when `ArmConfig.fallback_teacher`).
    """

    reward_filter: bool = True
    forward_kl: bool = True
    teacher_fallback: bool = True


RWOPD = Switches()


@dataclass
class TrainLog:
    method: str
    losses: list[float] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)  # mean rollout reward per step
    equivalent: list[int] = field(default_factory=list)  # student rollouts proved EQUIVALENT per step (reward 1)
    implied: list[int] = field(default_factory=list)  # ... that only imply the reference per step (reward rho)
    kept: list[int] = field(default_factory=list)  # rollouts used by the loss per step
    generations: int = 0  # student rollouts (equal across arms)
    teacher_fallbacks: int = 0  # passing teacher rollouts added by the rwopd fallback
    teacher_samples: int = 0  # teacher generations the fallback sampled to find them (compute beside `generations`)
    trained_tokens: int = 0
    seconds: float = 0.0  # wall, summed over resumed pieces
    cpu_seconds: float = 0.0  # this process's CPU, summed over resumed pieces

    def tokens_per_second(self) -> float:
        return self.trained_tokens / self.seconds if self.seconds else 0.0


def _mean_per_row(values, rows, batch: int):
    """(N,) per-token values -> (batch,) mean over each row's tokens."""
    import torch

    total = torch.zeros(batch, dtype=values.dtype, device=values.device).index_add(0, rows, values)
    count = torch.zeros(batch, dtype=values.dtype, device=values.device).index_add(0, rows, torch.ones_like(values))
    return total / count.clamp(min=1)


def cross_entropy(model, batch):
    """Per-sequence mean negative log-likelihood of the completion tokens: (N,)."""
    logp, rows, targets = completion_logprobs(model, batch)
    picked = logp.gather(-1, targets[:, None]).squeeze(-1)
    return -_mean_per_row(picked, rows, batch.size)


def kl_per_row(student, teacher, batch, reverse: bool):
    """Per-sequence mean token KL between teacher and student next-token distributions: (N,)."""
    import torch

    with torch.no_grad():
        t_logp, rows, _ = completion_logprobs(teacher, batch)
    s_logp, _, _ = completion_logprobs(student, batch)
    if reverse:  # KL(pi_s || pi_T)
        kl = (s_logp.exp() * (s_logp - t_logp)).sum(-1)
    else:  # KL(pi_T || pi_s)
        kl = (t_logp.exp() * (t_logp - s_logp)).sum(-1)
    return _mean_per_row(kl, rows, batch.size)


def arm_loss(method, student, teacher, tokenizer, prompts, references, rollouts, rewards, cfg: ArmConfig,
             switches: Switches = RWOPD):
    """(loss or None when nothing is kept, number of sequences used, tokens trained on); `switches`
    apply to the `rwopd` arm only."""
    import torch

    if method == "sft":
        batch = encode_rollouts(tokenizer, prompts, [target_text(r) for r in references], list(range(len(prompts))),
                                student.device)
        return cross_entropy(student, batch).mean(), batch.size, batch.tokens()
    owner = [p for p, outs in enumerate(rollouts) for _ in outs]
    flat_outs = [" " + o.strip() + "\n" for outs in rollouts for o in outs]
    flat_rewards = [r for rs in rewards for r in rs]
    if method == "opd" or (method == "rwopd" and not switches.reward_filter):
        keep = list(range(len(flat_outs)))
    else:
        keep = [i for i, r in enumerate(flat_rewards) if r >= cfg.r_min]
    if not keep:
        return None, 0, 0
    batch = encode_rollouts(tokenizer, prompts, [flat_outs[i] for i in keep], [owner[i] for i in keep],
                            student.device)
    if method == "rft":
        return cross_entropy(student, batch).mean(), batch.size, batch.tokens()
    if method == "opd":
        return kl_per_row(student, teacher, batch, reverse=True).mean(), batch.size, batch.tokens()
    per_row = kl_per_row(student, teacher, batch, reverse=not switches.forward_kl)
    if not switches.reward_filter:
        return per_row.mean(), batch.size, batch.tokens()
    kept_rewards = torch.tensor([flat_rewards[i] for i in keep], device=student.device)
    weights = (kept_rewards / kept_rewards.mean()).clamp(0.0, cfg.w_max)
    return (weights * per_row).mean(), batch.size, batch.tokens()


def train_arm(method: str, student, teacher, tokenizer, pool, cfg: ArmConfig, cache: VerdictCache,
              seed: int = 0, out_dir: Path | None = None, progress: bool = False,
              switches: Switches = RWOPD) -> TrainLog:
    """Train `student` in place with one arm (`switches`: which of RWOPD's choices the `rwopd` arm
    uses); resumes from `out_dir/state.pt` when present."""
    import torch
    from proceedings.core.progress import progress_bar

    if method not in METHODS:
        raise ProceedingsError(f"unknown method '{method}'; choose one of: {', '.join(METHODS)}")
    optimizer = torch.optim.AdamW(student.parameters(), lr=cfg.lr)
    order = random.Random(seed).sample(range(len(pool)), len(pool))
    train_log, start = TrainLog(method), 0
    state_path = out_dir / "state.pt" if out_dir else None
    state = load_checkpoint(state_path) if state_path else None
    if state is None:
        seed_everything(seed)  # a fresh run is a function of the seed alone
    else:
        student.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        if state.get("switches", asdict(RWOPD)) != asdict(switches):
            raise ProceedingsError(f"{state_path} was trained with switches {state.get('switches', asdict(RWOPD))}, "
                                   f"not {asdict(switches)}; give each variant its own folder")
        restore_rng_state(state["rng"])
        train_log, start = TrainLog(**state["log"]), state["step"]
        log.info("%s: resumed at step %d", method, start)
    for step in progress_bar(range(start, cfg.steps), desc=method, disable=not progress, initial=start, total=cfg.steps):
        began, cpu0 = time.perf_counter(), time.process_time()
        batch = [pool[order[(step * cfg.batch_prompts + i) % len(pool)]] for i in range(cfg.batch_prompts)]
        prompts = [format_prompt(t.prompt) for t in batch]
        student.eval()
        rollouts = sample(student, tokenizer, prompts, cfg.rollouts, cfg.max_new_tokens, cfg.temperature)
        rewards = [[cache.reward(o, t.sva, cfg.rho) for o in outs] for t, outs in zip(batch, rollouts)]
        train_log.generations += sum(map(len, rollouts))
        train_log.rewards.append(sum(map(sum, rewards)) / max(1, sum(map(len, rewards))))  # students' own
        flat = [r for rs in rewards for r in rs]
        train_log.equivalent.append(sum(r == 1.0 for r in flat))
        train_log.implied.append(sum(0.0 < r < 1.0 for r in flat))
        if method == "rwopd" and cfg.fallback_teacher and switches.teacher_fallback:
            added, tried = teacher_fallback(teacher, tokenizer, batch, prompts, rollouts, rewards, cfg, cache)
            train_log.teacher_fallbacks += added
            train_log.teacher_samples += tried
        student.train()
        loss, kept, tokens = arm_loss(method, student, teacher, tokenizer, prompts, [t.sva for t in batch],
                                      rollouts, rewards, cfg, switches)
        if loss is not None:
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(student.parameters(), 1.0)
            optimizer.step()
        train_log.losses.append(loss.item() if loss is not None else float("nan"))
        train_log.kept.append(kept)
        train_log.trained_tokens += tokens
        train_log.seconds += time.perf_counter() - began
        train_log.cpu_seconds += time.process_time() - cpu0
        if state_path and ((step + 1) % cfg.checkpoint_every == 0 or step + 1 == cfg.steps):
            save_checkpoint(state_path, {"model": student.state_dict(), "optimizer": optimizer.state_dict(),
                                         "rng": rng_state(), "log": asdict(train_log), "step": step + 1,
                                         "config": asdict(cfg), "switches": asdict(switches)})
    student.eval()
    return train_log


def teacher_fallback(teacher, tokenizer, batch, prompts, rollouts, rewards, cfg: ArmConfig,
                     cache: VerdictCache) -> tuple[int, int]:
    """Spec §2.2 step 4: a prompt with no passable rollout gets one passing teacher rollout (in place).

    Up to `fallback_tries` teacher samples per such prompt; the first with reward >= r_min is added
    with its reward, else the prompt stays without a kept rollout. Returns (rollouts added, teacher
    samples drawn): the second is the fallback's generation compute.
    """
    stuck = [i for i, rs in enumerate(rewards) if max(rs, default=0.0) < cfg.r_min]
    if not stuck:
        return 0, 0
    tries = sample(teacher, tokenizer, [prompts[i] for i in stuck], cfg.fallback_tries, cfg.max_new_tokens,
                   cfg.temperature)
    added = 0
    for i, outs in zip(stuck, tries):
        for out in outs:
            r = cache.reward(out, batch[i].sva, cfg.rho)
            if r >= cfg.r_min:
                rollouts[i].append(out)
                rewards[i].append(r)
                added += 1
                break
    return added, len(stuck) * cfg.fallback_tries


def supervised_finetune(model, tokenizer, pairs, steps: int, batch_size: int, lr: float, seed: int = 0,
                        progress: bool = False, desc: str = "sft") -> list[float]:
    """Plain cross-entropy fine-tuning on (prompt, reference) pairs: builds the teacher and warm student."""
    import torch
    from proceedings.core.progress import progress_bar

    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    order = random.Random(seed).sample(range(len(pairs)), len(pairs))
    losses = []
    model.train()
    for step in progress_bar(range(steps), desc=desc, disable=not progress):
        batch = [pairs[order[(step * batch_size + i) % len(pairs)]] for i in range(batch_size)]
        loss = cross_entropy(model, supervised_batch(tokenizer, batch, model.device)).mean()
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())
    model.eval()
    return losses
