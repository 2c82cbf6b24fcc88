"""Distribution distances between generated and real person-days (MoveSim conventions, spec §2.5).

Base-2 Jensen-Shannon divergence (0 = same histogram, 1 = disjoint) between real and generated
histograms of: Distance (km per move between consecutive stays), Radius of gyration (km per day),
Duration (stay length in slots; the last stay runs to midnight), Location frequency (visits per cell)
and DailyLoc (distinct cells per day). Bins are fixed per target city (its diagonal, its grid), so
every arm is measured on the same bins. The headline is the mean of the first four. Fewer than
`MIN_VALID` valid samples is an error, never a number.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.mobta.trajectories import SLOTS_PER_DAY, Trajectory

MIN_VALID = 50
HEADLINE = ("distance", "radius", "duration", "location")
REPORTED = HEADLINE + ("dailyloc",)


def jsd(p: np.ndarray, q: np.ndarray) -> float:
    """Base-2 Jensen-Shannon divergence of two histograms (normalised here)."""
    p, q = np.asarray(p, float), np.asarray(q, float)
    if p.sum() <= 0 or q.sum() <= 0:
        raise ProceedingsError("JSD of an empty histogram")
    p, q = p / p.sum(), q / q.sum()
    m = (p + q) / 2

    def kl(a: np.ndarray) -> float:
        nz = a > 0
        return float((a[nz] * np.log2(a[nz] / m[nz])).sum())

    return min(max(0.5 * kl(p) + 0.5 * kl(q), 0.0), 1.0)


@dataclass(frozen=True)
class Bins:
    """The target city's fixed bins."""

    centres_km: np.ndarray  # (cells, 2)
    diagonal_km: float

    @property
    def edges(self) -> dict[str, np.ndarray]:
        return {"distance": np.linspace(0, self.diagonal_km, 51), "radius": np.linspace(0, self.diagonal_km / 2, 51),
                "duration": np.arange(1, SLOTS_PER_DAY + 2) - 0.5, "location": np.arange(len(self.centres_km) + 1) - 0.5,
                "dailyloc": np.arange(1, 26) - 0.5}

    @classmethod
    def for_city(cls, centres_km: np.ndarray) -> "Bins":
        span = centres_km.max(0) - centres_km.min(0)
        cell = span / max(1, int(np.sqrt(len(centres_km))) - 1)
        return cls(centres_km, float(np.linalg.norm(span + cell)))


def day_values(day: Trajectory, bins: Bins) -> dict[str, list[float]]:
    """The raw values one person-day contributes to each histogram."""
    xy = bins.centres_km[day.cells]
    moves = np.linalg.norm(np.diff(xy, axis=0), axis=1) if len(xy) > 1 else np.zeros(0)
    starts = day.slots + [SLOTS_PER_DAY]
    return {"distance": list(moves), "radius": [float(np.sqrt(((xy - xy.mean(0)) ** 2).sum(1).mean()))],
            "duration": [b - a for a, b in zip(starts, starts[1:])], "location": day.cells,
            "dailyloc": [len(set(day.cells))]}


def histogram_rows(days: list[Trajectory], bins: Bins) -> dict[str, np.ndarray]:
    """metric -> (days, bins) counts: one row per day, so a bootstrap resample is a weighted row sum.

    Values outside a metric's edges land in its first or last bin."""
    edges = bins.edges
    day_index: dict[str, list[int]] = {m: [] for m in REPORTED}
    values: dict[str, list[float]] = {m: [] for m in REPORTED}
    for i, day in enumerate(days):
        for metric, these in day_values(day, bins).items():
            day_index[metric] += [i] * len(these)
            values[metric] += list(these)
    rows = {}
    for metric in REPORTED:
        e = edges[metric]
        clipped = np.clip(np.asarray(values[metric], float), e[0], e[-1] - 1e-9)
        rows[metric] = np.zeros((len(days), len(e) - 1))
        np.add.at(rows[metric], (np.asarray(day_index[metric], int), np.searchsorted(e, clipped, side="right") - 1), 1)
    return rows


def jsd_table(generated: dict[str, np.ndarray], real: dict[str, np.ndarray]) -> dict[str, float]:
    """Per-metric JSD of two sets' histograms (metric -> counts), and `mean` over the headline metrics."""
    table = {m: jsd(generated[m], real[m]) for m in REPORTED}
    table["mean"] = float(np.mean([table[m] for m in HEADLINE]))
    return table


def _totals(rows: dict[str, np.ndarray], weights: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """The set's histograms: its rows summed, each day counted `weights[i]` times (once by default)."""
    return {m: r.sum(0) if weights is None else weights @ r for m, r in rows.items()}


def evaluate(generated: list[Trajectory], real: list[Trajectory], bins: Bins) -> dict[str, float]:
    """The JSD table of generated vs real person-days; needs at least MIN_VALID valid samples."""
    if len(generated) < MIN_VALID:
        raise ProceedingsError(f"only {len(generated)} valid samples; metrics need at least {MIN_VALID}")
    return jsd_table(_totals(histogram_rows(generated, bins)), _totals(histogram_rows(real, bins)))


def bootstrap_gap(better: list[Trajectory], worse: list[Trajectory], real: list[Trajectory], bins: Bins,
                  reps: int = 200, seed: int = 0) -> tuple[float, float]:
    """95 % percentile interval of mean-JSD(worse) - mean-JSD(better), resampling all three sets."""
    for days in (better, worse):
        if len(days) < MIN_VALID:
            raise ProceedingsError(f"only {len(days)} valid samples; metrics need at least {MIN_VALID}")
    rng = np.random.default_rng(seed)
    rows = [histogram_rows(days, bins) for days in (better, worse, real)]
    gaps = []
    for _ in range(reps):
        a, b, r = (_totals(rows_, np.bincount(rng.integers(n, size=n), minlength=n).astype(float))
                   for rows_, n in ((x, len(x["location"])) for x in rows))
        gaps.append(jsd_table(b, r)["mean"] - jsd_table(a, r)["mean"])
    low, high = np.percentile(gaps, [2.5, 97.5])
    return float(low), float(high)


def real_floor(real: list[Trajectory], bins: Bins, seed: int = 0) -> float:
    """Mean JSD between two random halves of the real set: the smallest value sampling noise allows."""
    order = np.random.default_rng(seed).permutation(len(real))
    half = len(real) // 2
    return jsd_table(_totals(histogram_rows([real[i] for i in order[:half]], bins)),
                     _totals(histogram_rows([real[i] for i in order[half:]], bins)))["mean"]
