"""Evaluation protocol (spec §2.5): generate, detect, measure quality, and again after each attack.

Positives are plain samples from the watermarked model given held-out prompts; negatives are the
human continuations of the same prompts and plain samples from the original model.  Each text is
scored by the method's own detector (its z statistic), prompt tokens excluded.  Quality (PPL under
the original model) is measured for the released model, the comparison the claim makes; after an
attack only detection is measured (the attacker's model is not what the owner releases), which
keeps the small evaluation inside its budget.
"""

from __future__ import annotations

import json
import logging
import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

import torch

from proceedings.core.runtime import atomic_write_text
from proceedings.pro.detector import Detector, Score
from proceedings.pro.generation import perplexity, sample
from proceedings.pro.metrics import detection_summary

log = logging.getLogger(__name__)


@dataclass
class EvalSet:
    """Prompts, their human continuations, and the original model's own continuations."""

    prompts: torch.Tensor  # (P, L)
    human: torch.Tensor  # (P, N)
    original: torch.Tensor  # (P, N) sampled from the un-watermarked model
    new_tokens: int
    batch_size: int = 16
    seed: int = 0

    def negatives(self) -> list[torch.Tensor]:
        return [self.human, self.original]


@dataclass
class ConditionResult:
    """Detection and quality of one model under one condition (clean, or after an attack)."""

    z: list[float]
    detection: dict
    ppl: float | None  # None where quality was not measured (after an attack)
    scored_tokens: float
    extras: dict = field(default_factory=dict)


def scores(detector: Detector, prompts: torch.Tensor, continuations: torch.Tensor) -> list[Score]:
    """The detector's score of each continuation, its prompt as context only."""
    return [detector.score_ids(torch.cat([prompt, text]), prompt_len=len(prompt))
            for prompt, text in zip(prompts, continuations)]


def z_of(score: Score) -> float:
    """The score's z; an unscorable (too short) text counts as -inf, i.e. as unwatermarked."""
    return score.z if score.z is not None else -math.inf


def z_scores(detector: Detector, prompts: torch.Tensor, continuations: torch.Tensor) -> list[float]:
    """The z of each continuation (prompt as context only)."""
    return [z_of(score) for score in scores(detector, prompts, continuations)]


def null_z(detector: Detector, data: EvalSet) -> list[float]:
    return [z for negatives in data.negatives() for z in z_scores(detector, data.prompts, negatives)]


def evaluate_condition(model, detector: Detector, original_model, data: EvalSet, negatives: list[float],
                       label: str, logits_processor=None, quality: bool = True) -> ConditionResult:
    """Sample from `model`, score against `negatives`, and (with `quality`) measure PPL under the
    original model."""
    generations = sample(model, data.prompts, data.new_tokens, data.batch_size, data.seed + 1,
                         logits_processor=logits_processor, progress=f"sample {label}")
    scored = scores(detector, data.prompts, generations)
    z = [z_of(score) for score in scored]
    summary = detection_summary(z, negatives, seed=data.seed)
    ppl = perplexity(original_model, data.prompts, generations, data.batch_size) if quality else None
    log.info("%s: AUC %.3f, TPR@5%% %.3f, PPL %s", label, summary["auc"], summary["tpr_at_5fpr"],
             "-" if ppl is None else f"{ppl:.2f}")
    return ConditionResult(z=z, detection=summary, ppl=ppl,
                           scored_tokens=sum(score.n_scored for score in scored) / len(scored))


def evaluate_under_attacks(model, detector: Detector, original_model, data: EvalSet, label: str,
                           attacks: dict[str, Callable], store: Path | None = None) -> dict[str, ConditionResult]:
    """`clean` (detection and quality) plus one entry per attack (detection; each attack builds a new
    model, `model` is untouched).  With `store`, each finished condition is kept there as JSON and
    reused, so an evaluation interrupted between conditions resumes where it stopped."""
    negatives = null_z(detector, data)

    def kept(name: str, evaluate: Callable[[], ConditionResult]) -> ConditionResult:
        path = store / f"{name}.json" if store is not None else None
        if path is not None and path.is_file():
            return ConditionResult(**json.loads(path.read_text()))
        result = evaluate()
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(path, json.dumps(asdict(result)))
        return result

    results = {"clean": kept("clean", lambda: evaluate_condition(model, detector, original_model, data, negatives,
                                                                 f"{label}/clean"))}
    for name, attack in attacks.items():
        results[name] = kept(name, lambda: evaluate_condition(attack(model), detector, original_model, data, negatives,
                                                              f"{label}/{name}", quality=False))
    return results


@torch.no_grad()
def policy_balance_error(detector: Detector, texts: torch.Tensor) -> float:
    """Mean over contexts of |fraction of the vocabulary the policy calls green - gamma|."""
    scores = detector.policy(texts)  # (B, T, V)
    return float(((scores > 0).float().mean(-1) - detector.gamma).abs().mean())


def detection_throughput(detector: Detector, prompts: torch.Tensor, texts: torch.Tensor) -> float:
    """Scored tokens per second of the detector on `texts` (single thread, CPU)."""
    started = time.perf_counter()
    z_scores(detector, prompts, texts)
    return texts.numel() / (time.perf_counter() - started)
