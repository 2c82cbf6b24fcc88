"""Figures: error curves per ε, exponent ratios against min{1, ε/ε*}, countable rates, lower bounds."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from proceedings.dplang.evaluate import ErrorPoint  # noqa: E402

Curves = Mapping[str, Sequence[ErrorPoint]]


def _finish(fig, ax, path: Path, title: str, xlabel: str, ylabel: str) -> Path:
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    if path is not None:
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)
    return path


def _log10(points: Sequence[ErrorPoint]) -> tuple[np.ndarray, np.ndarray]:
    return np.array([p.n for p in points]), np.array([p.log10_err for p in points])


def error_curves(panels: Mapping[str, Curves], path: Path, xlabel: str = "sample size n") -> Path:
    """One panel per title; one line per curve: log10 error against n."""
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4.2), squeeze=False)
    for ax, (title, curves) in zip(axes[0], panels.items()):
        for label, points in curves.items():
            n, y = _log10(points)
            ax.plot(n, y, marker="o", ms=3, label=label, lw=2.2 if label.startswith("NP") else 1.2,
                    color="black" if label.startswith("NP") else None)
        _finish(fig, ax, None, title, xlabel, "log10 error")  # linear n: exponential rates are straight lines
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def exponent_ratios(eps: Sequence[float], series: Mapping[str, Sequence[float]], eps_star: float, kappa: float,
                    path: Path) -> Path:
    """Measured exponent ratios (to non-private) against ε, inside the band stated before measuring."""
    fig, ax = plt.subplots(figsize=(6.2, 4.4))
    grid = np.geomspace(min(eps) / 1.5, max(eps) * 1.5, 200)
    low, high = np.minimum(1, grid / eps_star), np.minimum(1, kappa * grid / eps_star)
    ax.fill_between(grid, low, high, color="grey", alpha=0.25,
                    label=f"pure band min(1, eps/eps*)..min(1, {kappa:.2g}·eps/eps*), eps*={eps_star:.3g}")
    for label, ratios in series.items():
        ax.plot(eps, ratios, marker="o", label=label)
    ax.set_xscale("log")
    ax.set_ylim(0, 1.1)
    return _finish(fig, ax, path, "F1 identification: cost of privacy in the error exponent", "eps",
                   "exponent ratio to non-private")


def countable_rates(bands: Mapping[str, tuple[np.ndarray, Sequence[ErrorPoint]]], path: Path) -> Path:
    """F3: exact lower/upper bounds of log10 error against r(n) = n/(k(n)+1), one band per schedule."""
    fig, ax = plt.subplots(figsize=(6.2, 4.4))
    for label, (rate, points) in bands.items():
        low = np.array([p.log_low for p in points]) / np.log(10)
        high = np.array([p.log_high for p in points]) / np.log(10)
        ax.fill_between(rate, low, high, alpha=0.35)
        ax.plot(rate, high, marker="o", ms=3, label=label)
    return _finish(fig, ax, path, "F3 countable collection: error = exp(-Θ(r(n)))", "r(n) = n / (k(n) + 1)",
                   "log10 error (exact bounds)")


def lower_bounds(eps: Sequence[float], achieved: Mapping[str, Sequence[float]], bound: Sequence[float],
                 nonprivate: float, path: Path) -> Path:
    """Achieved exponents against the two-point bounds (no algorithm's exponent can exceed them)."""
    fig, ax = plt.subplots(figsize=(6.2, 4.4))
    ax.plot(eps, bound, color="black", ls="--", label="two-point bound, any pure eps-DP algorithm")
    ax.axhline(nonprivate, color="grey", ls=":", label="two-point bound, any algorithm")
    for label, values in achieved.items():
        ax.plot(eps, values, marker="o", label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    return _finish(fig, ax, path, "F1: achieved exponents vs the lower bound", "eps", "error exponent per sample")
