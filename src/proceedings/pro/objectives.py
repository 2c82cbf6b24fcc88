"""The loss terms of watermark distillation and of PRO's co-adaptive policy training (spec §2.2).

Shapes: logits and policy scores are (B, T, V) for the token after each of T positions.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


def distillation_kl(teacher_logits: torch.Tensor, student_logits: torch.Tensor) -> torch.Tensor:
    """L_KD = mean_i KL(q(.|x<i) || p_theta(.|x<i)), q = softmax(watermarked teacher logits).

    Gradients reach the student and, for PRO, the policy inside `teacher_logits` (Gu et al. Eq. 2;
    PRO trains both through this term).
    """
    log_q = F.log_softmax(teacher_logits, dim=-1)
    log_p = F.log_softmax(student_logits, dim=-1)
    return (log_q.exp() * (log_q - log_p)).sum(-1).mean()


def balance(scores: torch.Tensor) -> torch.Tensor:
    """L_bal = mean_i |mean_v M_i[v]|: every context splits the vocabulary about evenly."""
    return scores.mean(-1).abs().mean()


def unbiasedness(scores: torch.Tensor) -> torch.Tensor:
    """L_unb = mean_v |mean_i M_i[v]|: no token is green in every context (blocks 'always green')."""
    return scores.flatten(0, -2).mean(0).abs().mean()


def magnitude(scores: torch.Tensor, target: float = 1.0) -> torch.Tensor:
    """L_mag = (mean |M| - target)^2: the policy must not shrink to zero, which makes L_KD trivial."""
    return (scores.abs().mean() - target) ** 2


def soft_green(scores: torch.Tensor, temperature: float = 0.1) -> torch.Tensor:
    """Differentiable stand-in for the detector's green indicator [M > 0]."""
    return torch.sigmoid(scores / temperature)


def learnability(student_logits: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
    """L_learn = -mean_i sum_v p_theta(v|x<i) g(M_i[v]): the student's expected green rate under the
    current policy, the spec's generation-detection consistency term (§2.2) with a soft indicator.

    It reaches the policy from step 0 (where p_theta is the original model): the policy moves its
    green lists toward what the student produces, the student toward the green lists.  Alone it would
    colour the original model's likely tokens green and flag clean text; `null_calibration` holds the
    original model's rate at gamma, and `mark_floor` keeps the teacher's mark from fading.
    """
    return -(F.softmax(student_logits, dim=-1) * soft_green(scores)).sum(-1).mean()


def teacher_gap(teacher_logits: torch.Tensor, original_probs: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
    """mean_i sum_v (q(v) - p_orig(v)) g(M_i[v]): how much green mass the watermark adds to the
    teacher, the strength of the mark the student is asked to learn (soft, differentiable)."""
    return ((F.softmax(teacher_logits, dim=-1) - original_probs) * soft_green(scores)).sum(-1).mean()


def mark_floor(gap: torch.Tensor, floor: float) -> torch.Tensor:
    """L_floor = relu(1 - gap / floor): zero while the teacher's green gap is at least `floor` (its
    value at calibration), linear below it.  The null term is met for free by M = 0 on likely tokens,
    which fades the mark the detector reads; this term forbids that way of winning (our addition).
    A floor of 0 switches it off."""
    return torch.relu(1 - gap / floor) if floor > 0 else gap.new_zeros(())


def null_calibration(original_probs: torch.Tensor, scores: torch.Tensor, gamma: float = 0.5) -> torch.Tensor:
    """L_null = (mean_i sum_v p_orig(v|x<i) g(M_i[v]) - gamma)^2: clean text is green at rate gamma.

    Without it the jointly trained policy learns the original model's preferences (colouring its
    likely tokens red or green): detection then tells two models apart by taste, and the z-test's
    null (green rate gamma on clean text) fails.  The constraint is on the rate over the batch, which
    is what the z-test assumes; per position it cannot hold where the original model is confident
    (its one likely token is green or red) and forces M to 0 there (measured at small scale).
    Our addition (README "Departures").
    """
    return ((original_probs * soft_green(scores)).sum(-1).mean() - gamma) ** 2


def green_mass(logits: torch.Tensor, green: torch.Tensor) -> torch.Tensor:
    """Mean probability the model puts on green tokens: the green fraction its samples will show."""
    return (F.softmax(logits, dim=-1) * green.float()).sum(-1).mean()


def language_model_loss(logits: torch.Tensor, input_ids: torch.Tensor) -> torch.Tensor:
    """Next-token cross-entropy on clean text: what a user's fine-tuning minimises."""
    return F.cross_entropy(logits[:, :-1].flatten(0, 1), input_ids[:, 1:].flatten())
