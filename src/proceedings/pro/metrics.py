"""Detection metrics: AUC, TPR at a fixed FPR, bootstrap confidence intervals, the ROC plot."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np


def auc(positives, negatives) -> float:
    """Probability that a watermarked text outscores a clean one (ties count half)."""
    pos, neg = np.asarray(positives, float), np.asarray(negatives, float)
    greater = (pos[:, None] > neg[None, :]).mean()
    ties = (pos[:, None] == neg[None, :]).mean()
    return float(greater + 0.5 * ties)


def tpr_at_fpr(positives, negatives, fpr: float) -> float:
    """TPR at the strictest threshold whose empirical FPR on `negatives` is <= fpr."""
    neg = np.sort(np.asarray(negatives, float))
    allowed = int(np.floor(fpr * len(neg)))  # negatives allowed above the threshold
    threshold = neg[len(neg) - allowed - 1]
    return float((np.asarray(positives, float) > threshold).mean())


def bootstrap_ci(metric, positives, negatives, rounds: int = 1000, seed: int = 0, level: float = 0.95):
    """(low, high) percentile interval of `metric(pos, neg)` resampling texts (prompts) with replacement."""
    rng = np.random.default_rng(seed)
    pos, neg = np.asarray(positives, float), np.asarray(negatives, float)
    values = [metric(rng.choice(pos, len(pos)), rng.choice(neg, len(neg))) for _ in range(rounds)]
    tail = (1 - level) / 2 * 100
    return float(np.percentile(values, tail)), float(np.percentile(values, 100 - tail))


def paired_auc_difference(pos_a, neg_a, pos_b, neg_b, rounds: int = 1000, seed: int = 0, level: float = 0.95):
    """AUC(a) - AUC(b) and its paired bootstrap interval: both detectors scored the same texts (positive
    i is the same prompt for a and b, negative j the same clean text), so each round resamples prompt
    and clean-text indices once and uses them for both."""
    rng = np.random.default_rng(seed)
    pos_a, neg_a, pos_b, neg_b = (np.asarray(x, float) for x in (pos_a, neg_a, pos_b, neg_b))
    values = []
    for _ in range(rounds):
        i, j = rng.integers(len(pos_a), size=len(pos_a)), rng.integers(len(neg_a), size=len(neg_a))
        values.append(auc(pos_a[i], neg_a[j]) - auc(pos_b[i], neg_b[j]))
    tail = (1 - level) / 2 * 100
    return auc(pos_a, neg_a) - auc(pos_b, neg_b), (float(np.percentile(values, tail)),
                                                    float(np.percentile(values, 100 - tail)))


def detection_summary(positives, negatives, seed: int = 0) -> dict[str, float]:
    """AUC, TPR@1%/5% FPR and their 95% bootstrap intervals."""
    summary = {"auc": auc(positives, negatives), "auc_ci": bootstrap_ci(auc, positives, negatives, seed=seed)}
    for fpr, name in ((0.01, "tpr_at_1fpr"), (0.05, "tpr_at_5fpr")):
        metric = functools.partial(tpr_at_fpr, fpr=fpr)
        summary[name] = metric(positives, negatives)
        summary[f"{name}_ci"] = bootstrap_ci(metric, positives, negatives, seed=seed)
    return summary


def roc_curve(positives, negatives) -> tuple[np.ndarray, np.ndarray]:
    scores = np.concatenate([positives, negatives])
    thresholds = np.unique(scores)[::-1]
    pos, neg = np.asarray(positives), np.asarray(negatives)
    tpr = np.array([0.0] + [(pos >= t).mean() for t in thresholds])
    fpr = np.array([0.0] + [(neg >= t).mean() for t in thresholds])
    return fpr, tpr


def _figure():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt, *plt.subplots(figsize=(5, 4.5))


def _save(plt, fig, path: Path | str) -> Path:
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_roc(curves: dict[str, tuple], path: Path | str, title: str) -> Path:
    """One ROC line per label: {label: (positives, negatives)}."""
    plt, fig, ax = _figure()
    for label, (pos, neg) in curves.items():
        fpr, tpr = roc_curve(pos, neg)
        ax.plot(fpr, tpr, label=f"{label} (AUC {auc(pos, neg):.2f})")
    ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls="--")
    ax.set(xlabel="false positive rate", ylabel="true positive rate", title=title)
    ax.legend(fontsize=8, loc="lower right")
    return _save(plt, fig, path)


def plot_green_gap(runs: dict[str, list[dict]], path: Path | str, title: str) -> Path:
    """Per training step, under each method's own green lists (what detection will see): the teacher's
    green mass minus the original model's (dashed: the mark asked for) and the student's (solid: the
    mark learnt), from each run's metrics.jsonl records."""
    plt, fig, ax = _figure()
    for label, records in runs.items():
        steps = [r["step"] for r in records]
        line, = ax.plot(steps, [r["green_mass"] - r["original_green_mass"] for r in records], label=f"{label} student")
        ax.plot(steps, [r["teacher_green_mass"] - r["original_green_mass"] for r in records], color=line.get_color(),
                ls="--", lw=1, label=f"{label} teacher")
    ax.axhline(0, color="grey", lw=0.8, ls=":")
    ax.set(xlabel="training step", ylabel="green mass minus the original's", title=title)
    ax.legend(fontsize=7)
    return _save(plt, fig, path)


def plot_teacher_kl(runs: dict[str, list[dict]], path: Path | str, title: str, target: float | None) -> Path:
    """Per training step, KL(teacher || original) on that step's batch (lines), and on the held-out blocks
    just before each re-calibration of delta (markers: how far PRO's learning policy had drifted)."""
    plt, fig, ax = _figure()
    for label, records in runs.items():
        line, = ax.plot([r["step"] for r in records], [r["teacher_kl"] for r in records], lw=1,
                        label=f"{label}, training batch")
        drifted = [r for r in records if "held_out_teacher_kl_before" in r]
        if drifted:
            ax.plot([r["step"] + 1 for r in drifted], [r["held_out_teacher_kl_before"] for r in drifted], "o",
                    color=line.get_color(), ms=4, label=f"{label}, held out, before re-calibration")
    if target:
        ax.axhspan(0.95 * target, 1.05 * target, color="grey", alpha=0.15, label="target KL +/- 5 %")
    ax.set(xlabel="training step", ylabel="KL(teacher || original)", title=title)
    ax.legend(fontsize=7)
    return _save(plt, fig, path)
