"""Motion-forecasting metrics with the Argoverse 2 definitions (spec §5).

A forecast of one focal agent is K trajectories (K, T, 2) with mode probabilities (K,); ground truth
is (T, 2). minADE_K / minFDE_K take the mode with the smallest final displacement (AV2 picks the
best mode by endpoint for both), MR@2 m counts minFDE_K > 2 m, brier-minFDE_K adds (1 - p_best)^2,
K = 1 keeps only the most probable mode. Off-road: the share of forecast endpoints more than 2.5 m
from every lane centreline point of the scenario's map.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from proceedings.core.errors import ProceedingsError

MISS_M = 2.0  # AV2 miss threshold
OFF_ROAD_M = 2.5  # spec §5


@dataclass
class PerScenario:
    """Per-scenario numbers, kept for paired bootstraps and subsets."""

    min_ade6: np.ndarray
    min_fde6: np.ndarray
    min_ade1: np.ndarray
    min_fde1: np.ndarray
    brier_fde6: np.ndarray
    horizon_error: np.ndarray  # (n, T): displacement of the best (by FDE) mode at every step


def per_scenario(forecasts: np.ndarray, probabilities: np.ndarray, truth: np.ndarray) -> PerScenario:
    """forecasts (n, K, T, 2), probabilities (n, K), truth (n, T, 2)."""
    forecasts, truth = np.asarray(forecasts, dtype=np.float64), np.asarray(truth, dtype=np.float64)
    if forecasts.ndim != 4 or truth.ndim != 3 or forecasts.shape[2:] != truth.shape[1:]:
        raise ProceedingsError(f"forecast shape {forecasts.shape} does not match ground truth {truth.shape}")
    if not np.isfinite(forecasts).all():
        raise ProceedingsError("a forecast holds NaN or inf")
    dist = np.linalg.norm(forecasts - truth[:, None], axis=-1)  # (n, K, T)
    ade, fde = dist.mean(-1), dist[..., -1]
    rows = np.arange(len(dist))
    best = fde.argmin(1)
    top = np.asarray(probabilities).argmax(1)
    p_best = np.asarray(probabilities, dtype=np.float64)[rows, best]
    return PerScenario(min_ade6=ade[rows, best], min_fde6=fde[rows, best], min_ade1=ade[rows, top],
                       min_fde1=fde[rows, top], brier_fde6=fde[rows, best] + (1.0 - p_best) ** 2,
                       horizon_error=dist[rows, best])


def summarise(scores: PerScenario, steps_per_second: int = 10) -> dict:
    """The AV2 table plus the error at every whole second of the horizon."""
    horizon = scores.horizon_error.mean(0)
    return {"min_ade6": float(scores.min_ade6.mean()), "min_fde6": float(scores.min_fde6.mean()),
            "min_ade1": float(scores.min_ade1.mean()), "min_fde1": float(scores.min_fde1.mean()),
            "mr2": float((scores.min_fde6 > MISS_M).mean()), "brier_min_fde6": float(scores.brier_fde6.mean()),
            "error_by_second": {f"{(s + 1)}s": float(horizon[(s + 1) * steps_per_second - 1])
                                for s in range(len(horizon) // steps_per_second)},
            "n": int(len(scores.min_fde6))}


def off_road_rate(endpoints: np.ndarray, lane_points: list[np.ndarray]) -> float:
    """Share of endpoints (n, K, 2) farther than 2.5 m from their scenario's lane points (list of (P, 2));
    scenarios of one network share its array, and its search tree is built once."""
    from scipy.spatial import cKDTree

    trees: dict[int, cKDTree] = {}
    far = []
    for ends, lanes in zip(endpoints, lane_points):
        if id(lanes) not in trees:
            trees[id(lanes)] = cKDTree(lanes)
        far.append(trees[id(lanes)].query(ends)[0] > OFF_ROAD_M)
    return float(np.mean(far)) if far else 0.0


def paired_bootstrap(ours: np.ndarray, theirs: np.ndarray, reps: int = 1000, level: float = 0.90,
                     seed: int = 0) -> list[float]:
    """Percentile interval of mean(theirs - ours) over scenarios resampled with replacement (paired)."""
    diff = np.asarray(theirs, dtype=np.float64) - np.asarray(ours, dtype=np.float64)
    if len(diff) == 0:
        return [float("nan"), float("nan")]
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, len(diff), size=(reps, len(diff)))].mean(1)
    tail = (1.0 - level) / 2
    return [float(np.quantile(means, tail)), float(np.quantile(means, 1 - tail))]
