"""Embedding a watermark into the weights: KGW logit distillation and PRO (paper §3, spec §2.2-2.4).

Both methods distil the original model, biased by a watermark, into the released model on clean
text (no generation needed).  KGW-distill's bias is a fixed keyed hash (Gu et al. 2024); PRO's is a
policy network trained jointly with the model (CAWP) under the perturbation-aware regularizer (FPL).
Before training, each method's delta can be calibrated so that its teacher has a target
KL(teacher || original) on a held-out batch (`strength.py`): the comparison is then at equal strength.
PRO's policy keeps learning, so its teacher's KL drifts; every `recalibrate_every` steps and after the
last one, delta is bisected again to the same target under the current policy (`recalibrate`), and the
KL it had drifted to is recorded: strength stays matched at every evaluation point, not only at step 0.
A run directory holds `calibration.json`, `metrics.jsonl` (every loss term, every step), atomic
checkpoints that `resume=True` continues exactly (and refuses when the configuration changed), the
released `model/` and, apart from it, the secret `key/`.

Hugging Face Accelerate places the run: CPU, one GPU (`mixed_precision="bf16"`: fp32 master
weights, bf16 autocast), or several under `accelerate launch -m proceedings pro train ...`, where
each process takes its share of every batch and gradients are averaged across processes before
the optimiser step (what DDP does; the model is not wrapped because `SplitLM` calls its trunk and
heads separately, which a DDP wrapper would not see).  Process 0 alone writes files.
"""

from __future__ import annotations

import json
import logging
import math
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Callable

import torch

from proceedings.core.errors import ProceedingsError
from proceedings.core.runtime import (atomic_write_text, load_checkpoint, restore_rng_state, rng_state, save_checkpoint,
                                     seed_everything)
from proceedings.pro import objectives, perturbation, strength
from proceedings.pro.config import FPL_KINDS, METHODS, MIXED_PRECISION, KGWConfig, PolicyConfig, TrainConfig
from proceedings.pro.key import kgw_key, pro_key, save_key
from proceedings.pro.kgw import KGWWatermark
from proceedings.pro.policy import WatermarkPolicy, unit_bias
from proceedings.pro.release import save_model_dir
from proceedings.pro.split_model import SplitLM

log = logging.getLogger(__name__)


class TrainingDiverged(ProceedingsError):
    """A loss term became NaN or infinite; the last good checkpoint is kept."""


@dataclass
class RunFiles:
    out: Path

    @property
    def metrics(self) -> Path:
        return self.out / "metrics.jsonl"

    @property
    def checkpoints(self) -> Path:
        return self.out / "checkpoints"

    @property
    def model(self) -> Path:
        return self.out / "model"

    @property
    def key(self) -> Path:
        return self.out / "key"

    @property
    def calibration(self) -> Path:
        return self.out / "calibration.json"

    def latest_checkpoint(self) -> Path | None:
        found = sorted(self.checkpoints.glob("step-*.pt"))
        return found[-1] if found else None


def first_difference(saved: dict, current: dict, prefix: str = "") -> str | None:
    """The dotted name of the first field whose value differs between two nested config dicts."""
    for name in sorted(set(saved) | set(current)):
        old, new = saved.get(name), current.get(name)
        if isinstance(old, dict) and isinstance(new, dict):
            found = first_difference(old, new, f"{prefix}{name}.")
            if found:
                return found
        elif old != new and not (isinstance(old, (list, tuple)) and isinstance(new, (list, tuple))
                                 and list(old) == list(new)):
            return f"{prefix}{name} (checkpoint {old!r}, now {new!r})"
    return None


def _accelerator(model, config: TrainConfig):
    """This process's Accelerate state: the CPU when the model is there, else Accelerate's device
    (one GPU per process under `accelerate launch`)."""
    from accelerate import Accelerator

    return Accelerator(cpu=next(model.parameters()).device.type == "cpu", mixed_precision=config.mixed_precision)


def _warn_low_precision(params: list[torch.Tensor]) -> None:
    dtypes = {p.dtype for p in params} - {torch.float32}
    if dtypes:
        log.warning("trained weights are %s: AdamW steps below their resolution are lost; load the model in "
                    "float32 and train with mixed_precision='bf16' (fp32 weights, bf16 compute)",
                    ", ".join(map(str, sorted(dtypes, key=str))))


def batch_indices(step: int, n_blocks: int, batch_size: int, seed: int) -> torch.Tensor:
    """Which corpus blocks step `step` reads: a fresh seeded permutation each epoch (no cursor state)."""
    per_epoch = max(n_blocks // batch_size, 1)
    epoch, position = divmod(step, per_epoch)
    order = torch.randperm(n_blocks, generator=torch.Generator().manual_seed(seed * 100_003 + epoch))
    return order[position * batch_size : (position + 1) * batch_size]


class WatermarkTrainer:
    """Trains `model` in place to carry a watermark; `fit` runs, checkpoints and releases it."""

    def __init__(self, model, tokenizer, config: TrainConfig, policy: PolicyConfig | None = None,
                 kgw: KGWConfig | None = None):
        if config.method not in METHODS:
            raise ProceedingsError(f"unknown method '{config.method}'; choose one of: {', '.join(METHODS)}")
        unknown = set(config.fpl_kinds) - set(FPL_KINDS)
        if unknown:
            raise ProceedingsError(f"unknown FPL kind(s) {sorted(unknown)}; choose from {', '.join(FPL_KINDS)}")
        if config.mixed_precision not in MIXED_PRECISION:
            raise ProceedingsError(f"mixed_precision={config.mixed_precision!r}; choose one of {MIXED_PRECISION}")
        policy, kgw = replace(policy or PolicyConfig()), replace(kgw or KGWConfig())  # calibration sets delta
        for name, value in (("delta", policy.delta if config.method == "pro" else kgw.delta),
                            ("target_kl", config.target_kl)):
            if value is not None and not value > 0:
                raise ProceedingsError(f"{name}={value}: the watermark strength must be positive")
        self.given = {"train": asdict(config), "policy": asdict(policy), "kgw": asdict(kgw)}
        seed_everything(config.seed)
        self.accelerator = _accelerator(model, config)
        if config.batch_size % self.accelerator.num_processes:
            raise ProceedingsError(f"batch_size={config.batch_size} does not split over "
                                   f"{self.accelerator.num_processes} processes; use a multiple of it")
        self.device = self.accelerator.device
        self.model, self.tokenizer, self.config = model.to(self.device), tokenizer, config
        self.split = SplitLM(model, config.train_layers)
        _warn_low_precision(self.split.trainable())
        groups = [{"params": self.split.trainable(), "lr": config.lr_model}]
        if config.method == "pro":
            self.policy = WatermarkPolicy.for_model(model, policy).to(self.device)
            self.policy.requires_grad_(not config.freeze_policy)
            if not config.freeze_policy:
                groups.append({"params": list(self.policy.parameters()), "lr": config.lr_policy})
        else:
            self.kgw = KGWWatermark(kgw, model.get_output_embeddings().weight.shape[0])
        self.optimizer = torch.optim.AdamW(groups, weight_decay=0.0)
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, self._lr_factor)
        self.step = 0
        self.files: RunFiles | None = None  # set by fit()
        self.calibration: dict = {}  # delta, teacher KL and gaps at the start (calibrate)
        self.reference: tuple[torch.Tensor, torch.Tensor] | None = None  # held-out blocks, original logits
        self.strength_path: list[dict] = []  # PRO: teacher KL before each re-calibration, and the new delta

    def _lr_factor(self, step: int) -> float:
        """Linear warm-up, then cosine decay to zero (spec §2.2)."""
        warm = max(int(self.config.warmup * self.config.steps), 1)
        if step < warm:
            return (step + 1) / warm
        progress = (step - warm) / max(self.config.steps - warm, 1)
        return 0.5 * (1 + math.cos(math.pi * min(progress, 1.0)))

    # --- the objectives -------------------------------------------------------------------------

    def warm_start_policy(self, blocks: torch.Tensor) -> None:
        """Policy-only steps on balance + unbiasedness + magnitude, so detection means something
        from step 0 (as SIR pre-trains its mapping network); the frozen ablation starts here too."""
        optimizer = torch.optim.Adam(self.policy.parameters(), lr=self.config.lr_policy)
        self.policy.requires_grad_(True)
        for step in range(self.config.policy_warmup_steps):
            # the whole batch in every process: the policies stay identical without communication
            batch = blocks[batch_indices(step, len(blocks), self.config.batch_size, self.config.seed + 1)].to(self.device)
            scores = self.policy(batch)
            loss = objectives.balance(scores) + objectives.unbiasedness(scores) + objectives.magnitude(scores)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        self.policy.requires_grad_(not self.config.freeze_policy)

    @property
    def delta(self) -> float:
        return self.policy.config.delta if self.config.method == "pro" else self.kgw.config.delta

    @property
    def watermark(self):
        """The policy (PRO) or the keyed green lists (KGW-distill) that the teacher adds."""
        return self.policy if self.config.method == "pro" else self.kgw

    def _held_out(self, blocks: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The calibration blocks and the original model's logits on them (fixed: trunk and teacher
        head are frozen), computed once per run."""
        if self.reference is None:
            blocks = blocks.to(self.device)
            with torch.no_grad(), self.accelerator.autocast():
                original = self.split.head(self.split.trunk(blocks), teacher=True).float()
            self.reference = blocks, original
        return self.reference

    @torch.no_grad()
    def calibrate(self, blocks: torch.Tensor) -> dict:
        """Set delta so that KL(teacher || original) = `config.target_kl` on `blocks` (held out from
        training), or keep the given delta; record the teacher's KL, green gap and z per token, and
        for PRO the soft green gap that `mark_floor` defends."""
        blocks, original = self._held_out(blocks)
        bias, green = strength.unit_bias_and_green(self.watermark, blocks)
        target = self.config.target_kl or strength.teacher_kl(original, bias, self.delta)
        found = strength.calibrate_delta(original, bias, green, self._gamma, target).to_dict()
        if self.config.target_kl is None:
            found["delta"] = self.delta
        self._set_delta(found["delta"])
        if self.config.method == "pro":
            scores = self.policy(blocks)
            found["teacher_soft_gap"] = float(objectives.teacher_gap(original + found["delta"] * unit_bias(scores),
                                                                     torch.softmax(original, -1), scores))
        log.info("%s: delta %.3f gives KL(teacher || original) %.4f (target %s)", self.config.method, found["delta"],
                 found["teacher_kl"], self.config.target_kl)
        return found

    @property
    def _gamma(self) -> float:
        return self.policy.config.gamma if self.config.method == "pro" else self.kgw.config.gamma

    def _set_delta(self, delta: float) -> None:
        (self.policy.config if self.config.method == "pro" else self.kgw.config).delta = delta

    def recalibrates(self) -> bool:
        """Whether delta is re-bisected during training: PRO with a learning policy and a target KL
        (KGW's green lists and a frozen policy are fixed, so their teacher's KL cannot drift)."""
        cfg = self.config
        return (cfg.method == "pro" and not cfg.freeze_policy and cfg.target_kl is not None
                and cfg.recalibrate_every > 0)

    @torch.no_grad()
    def recalibrate(self) -> dict:
        """Measure the teacher's KL on the held-out blocks under the current policy (how far it drifted
        since the last calibration), then bisect delta back to the target KL."""
        blocks, original = self.reference
        bias, green = strength.unit_bias_and_green(self.policy, blocks)
        drifted = strength.teacher_kl(original, bias, self.delta)
        found = strength.calibrate_delta(original, bias, green, self._gamma, self.config.target_kl)
        self._set_delta(found.delta)
        point = {"held_out_teacher_kl_before": drifted, "delta": found.delta, "held_out_teacher_kl": found.teacher_kl}
        self.strength_path.append({"step": self.step, **point})
        return point

    def _pro_terms(self, batch, teacher_logits, student_logits) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
        scores = self.policy(batch)  # (B, T, V) in (-1, 1)
        original_probs = torch.softmax(teacher_logits, dim=-1)
        marked = teacher_logits + self.delta * unit_bias(scores)
        terms = {
            # The policy is not trained through L_KD: that gradient makes the watermark invisible
            # (q -> p by colouring all likely tokens alike); it learns through L_learn (README).
            "kd": objectives.distillation_kl(marked.detach(), student_logits),
            "balance": objectives.balance(scores),
            "unbiased": objectives.unbiasedness(scores),
            "learn": objectives.learnability(student_logits, scores),
            "null": objectives.null_calibration(original_probs, scores),
            "magnitude": objectives.magnitude(scores),
            "teacher_gap": objectives.teacher_gap(marked, original_probs, scores),
        }
        terms["floor"] = objectives.mark_floor(terms["teacher_gap"],
                                               self.config.floor_fraction * self.calibration["teacher_soft_gap"])
        return terms, scores

    def _fpl_term(self, hidden, batch, original_probs) -> dict[str, torch.Tensor]:
        """Detectability at simulated modified weights theta + Delta (first-order gradient to theta)."""
        cfg, params = self.config, self.split.trainable()
        kind = cfg.fpl_kinds[(self.step // cfg.fpl_every) % len(cfg.fpl_kinds)]
        if kind == "merge":
            deltas = perturbation.merge_delta(params, self.split.original(), float(torch.rand(()) * cfg.fpl_merge_max))
        elif kind == "noise":
            deltas = perturbation.noise_delta(params, cfg.fpl_noise)
        else:
            with self.accelerator.autocast():
                clean = objectives.language_model_loss(self.split.head(hidden), batch)
            deltas = perturbation.forgetting_delta(params, clean, cfg.fpl_ft_step)
        with perturbation.perturbed(params, deltas):
            with self.accelerator.autocast():
                loss = objectives.learnability(self.split.head(hidden), self.policy(batch))
            self._check_finite({"fpl": loss})
            (cfg.weights.fpl * loss).backward()
        return {"fpl": loss.detach(), f"fpl_{kind}": loss.detach()}

    def train_step(self, batch: torch.Tensor) -> dict[str, float]:
        """One optimiser step on a (B, T) batch (this process's share of it when several run);
        returns every loss term and the green mass, averaged over processes."""
        cfg, w = self.config, self.config.weights
        with self.accelerator.autocast():
            hidden = self.split.trunk(batch)
            with torch.no_grad():
                teacher_logits = self.split.head(hidden, teacher=True)
            student_logits = self.split.head(hidden)
            if cfg.method == "pro":
                terms, scores = self._pro_terms(batch, teacher_logits, student_logits)
                loss = (terms["kd"] + w.balance * terms["balance"] + w.unbiased * terms["unbiased"]
                        + w.learn * terms["learn"] + w.null * terms["null"] + w.magnitude * terms["magnitude"]
                        + w.floor * terms["floor"])
                green, bias = scores.detach() > 0, unit_bias(scores.detach())
            else:
                green = self.kgw.green(batch)
                bias = green.float()
                terms = {"kd": objectives.distillation_kl(teacher_logits + self.delta * bias, student_logits)}
                loss = terms["kd"]
        self._check_finite(terms)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if cfg.method == "pro" and cfg.fpl and self.step % cfg.fpl_every == 0:
            terms.update(self._fpl_term(hidden, batch, torch.softmax(teacher_logits, -1)))
        params = [p for group in self.optimizer.param_groups for p in group["params"]]
        self._average_gradients(params)
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        self.optimizer.step()
        self.scheduler.step()
        with torch.no_grad():
            terms["teacher_kl"] = objectives.distillation_kl(teacher_logits + self.delta * bias, teacher_logits)
            terms["green_mass"] = objectives.green_mass(student_logits, green)
            terms["original_green_mass"] = objectives.green_mass(teacher_logits, green)
            terms["teacher_green_mass"] = objectives.green_mass(teacher_logits + self.delta * bias, green)
        terms["loss"] = loss
        return self._averaged_record(terms)

    def _average_gradients(self, params: list[torch.Tensor]) -> None:
        """Mean gradient over processes (data parallelism); nothing to do in a single process."""
        if self.accelerator.num_processes == 1:
            return
        for p in params:
            grad = p.grad if p.grad is not None else torch.zeros_like(p)
            p.grad = self.accelerator.reduce(grad, reduction="mean")

    def _averaged_record(self, terms: dict[str, torch.Tensor]) -> dict[str, float]:
        values = torch.stack([value.detach().float() for value in terms.values()])
        if self.accelerator.num_processes > 1:
            values = self.accelerator.reduce(values, reduction="mean")
        return dict(zip(terms, values.tolist()))

    def _local(self, batch: torch.Tensor) -> torch.Tensor:
        """This process's rows of a global batch (all of it in a single process)."""
        return batch[self.accelerator.process_index :: self.accelerator.num_processes].to(self.device)

    def _check_finite(self, terms: dict[str, torch.Tensor]) -> None:
        for name, value in terms.items():
            if not torch.isfinite(value).all():
                raise TrainingDiverged(f"loss term '{name}' is {float(value.detach())} at step {self.step}; training stopped. "
                                       f"{self._last_good()}")

    def _last_good(self) -> str:
        latest = self.files.latest_checkpoint() if self.files else None
        return f"Last good checkpoint: {latest}" if latest else "No checkpoint was written yet"

    # --- the run ---------------------------------------------------------------------------------

    def state(self) -> dict:
        state = {"step": self.step, "model": [p.detach().clone() for p in self.split.trainable()],
                 "optimizer": self.optimizer.state_dict(), "scheduler": self.scheduler.state_dict(),
                 "rng": rng_state(), "config": self.given, "calibration": self.calibration, "delta": self.delta,
                 "strength_path": self.strength_path}
        if self.config.method == "pro":
            state["policy"] = self.policy.state_dict()
        return state

    def load_state(self, state: dict) -> None:
        with torch.no_grad():
            for p, saved in zip(self.split.trainable(), state["model"]):
                p.copy_(saved)
        if self.config.method == "pro":
            self.policy.load_state_dict(state["policy"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        restore_rng_state(state["rng"])
        self.step = state["step"]
        self.calibration = state["calibration"]
        self.strength_path = state["strength_path"]
        self._set_delta(state["delta"])

    def _checkpoint(self) -> None:
        if not self.accelerator.is_main_process:
            return
        save_checkpoint(self.files.checkpoints / f"step-{self.step:06d}.pt", self.state())
        for old in sorted(self.files.checkpoints.glob("step-*.pt"))[: -self.config.keep_checkpoints]:
            old.unlink()

    def _resume(self) -> None:
        latest = self.files.latest_checkpoint()
        state = load_checkpoint(latest) if latest else None
        if state is None:
            raise ProceedingsError(f"nothing to resume in '{self.files.out}': no checkpoint; run without --resume")
        changed = first_difference(state.get("config", {}), self.given)
        if changed:
            raise ProceedingsError(f"cannot resume '{self.files.out}' with another configuration: {changed} differs; "
                                   "use the run's settings or start a new --out")
        self.load_state(state)
        if self.accelerator.is_main_process:
            kept = [line for line in self.files.metrics.read_text().splitlines()
                    if json.loads(line)["step"] < self.step] if self.files.metrics.exists() else []
            self.files.metrics.write_text("".join(line + "\n" for line in kept))
        log.info("resumed from %s (step %d)", latest, self.step)

    def fit(self, blocks: torch.Tensor, out: Path | str, resume: bool = False, calibration: torch.Tensor | None = None,
            on_step: Callable[[int, dict], None] | None = None) -> Path:
        """Train for `config.steps` on (N, T) token blocks; write calibration, metrics, checkpoints, model/,
        key/.  `calibration` blocks (held out from `blocks`) set delta; default: the first batch."""
        from proceedings.core.progress import progress_bar

        self.files = RunFiles(Path(out))
        main = self.accelerator.is_main_process
        reference = calibration if calibration is not None else blocks[: self.config.batch_size]
        if resume:
            self._resume()
            self._held_out(reference)
        else:
            if main:
                self.files.checkpoints.mkdir(parents=True, exist_ok=True)
                for stale in self.files.checkpoints.glob("step-*.pt"):
                    stale.unlink()
                self.files.metrics.write_text("")
            if self.config.method == "pro" and self.config.policy_warmup_steps:
                self.warm_start_policy(blocks)
            self.calibration = self.calibrate(reference)
            if main:
                atomic_write_text(self.files.calibration, json.dumps(self.calibration, indent=2) + "\n")
        cfg = self.config
        with progress_bar(total=cfg.steps, initial=self.step, desc=f"train {cfg.method}", leave=False,
                  disable=not main) as bar:
            while self.step < cfg.steps:
                batch = blocks[batch_indices(self.step, len(blocks), cfg.batch_size, cfg.seed)]
                started = time.perf_counter()
                record = {"step": self.step, **self.train_step(self._local(batch))}
                record["tokens_per_s"] = batch.numel() / (time.perf_counter() - started)  # all processes'
                self.step += 1
                if self.recalibrates() and (self.step % cfg.recalibrate_every == 0 or self.step == cfg.steps):
                    record.update(self.recalibrate())
                if main:
                    with self.files.metrics.open("a") as metrics:
                        metrics.write(json.dumps(record) + "\n")
                bar.update(1)
                if self.step % cfg.checkpoint_every == 0 or self.step == cfg.steps:
                    self._checkpoint()
                if on_step is not None:
                    on_step(self.step, record)
        self.release()
        return self.files.out

    def key(self):
        return pro_key(self.policy, self.tokenizer) if self.config.method == "pro" else kgw_key(self.kgw.config, self.tokenizer)

    def release(self) -> None:
        """The watermarked model as a standard HF directory, and the key in a separate one."""
        if self.accelerator.is_main_process:
            save_model_dir(self.model, self.tokenizer, self.files.model,
                           {"made_by": "proceedings pro train", "method": self.config.method, "steps": self.step,
                            "processes": self.accelerator.num_processes, "train": asdict(self.config)})
            save_key(self.key(), self.files.key)
        self.accelerator.wait_for_everyone()
