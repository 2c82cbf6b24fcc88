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


def detectability(student_logits: torch.Tensor, original_probs: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
    """L_det = -mean_i sum_v (p_theta(v) - p_orig(v)) g(M_i[v]): the detector's expected margin.

    g is the soft green indicator, so this is the gap in expected green fraction between the
    student's and the original model's next token: exactly what the z-test separates.  The spec's
    reconstruction scores the student alone (-sum_v p_theta M); trained through the policy, that
    rewards colouring the original model's likely tokens green and so flags clean text as well.
    """
    shift = F.softmax(student_logits, dim=-1) - original_probs
    return -(shift * soft_green(scores)).sum(-1).mean()


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
