"""The lambda frontier: what each depth penalty costs in bits per byte and buys in speed (spec §2.2).

One initial model, copied: the matched baseline (single exit) and one N-vium per lambda are trained
from the same weights on the same batches, then evaluated and benchmarked together. "No perplexity
cost" is read off the frontier as the largest lambda whose bits per byte stay within the tolerance of
the baseline's, not claimed for a single point.
"""

from __future__ import annotations

import copy
import csv
import io
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from proceedings.core.runtime import atomic_write_text
from proceedings.nvium.baselines import matched_baseline
from proceedings.nvium.data import Corpus
from proceedings.nvium.model import NviumForCausalLM
from proceedings.nvium.train import TrainConfig, TrainRecord, train

BASELINE = "baseline"


def lambda_name(depth_penalty: float) -> str:
    return f"nvium-lambda{depth_penalty:g}"


@dataclass
class TrainedModel:
    model: NviumForCausalLM
    record: TrainRecord
    depth_penalty: float | None  # None for the baseline


def train_family(init: NviumForCausalLM, corpus: Corpus, cfg: TrainConfig, lambdas: tuple[float, ...],
                 runs_dir: Path, progress: bool = True) -> dict[str, TrainedModel]:
    """The baseline and one N-vium per lambda, all from `init`'s weights, each in runs_dir/<name>."""
    family = {}
    baseline = matched_baseline(init)
    family[BASELINE] = TrainedModel(baseline, train(baseline, corpus, replace(cfg, depth_penalty=0.0),
                                                     runs_dir / BASELINE, progress=progress), None)
    for depth_penalty in lambdas:
        model, name = copy.deepcopy(init), lambda_name(depth_penalty)
        record = train(model, corpus, replace(cfg, depth_penalty=depth_penalty), runs_dir / name, progress=progress)
        family[name] = TrainedModel(model, record, depth_penalty)
    return family


@dataclass
class FrontierPoint:
    name: str
    depth_penalty: float | None
    bpb: float
    mean_depth: float  # expected depth fraction under the router, validation set
    speedup: float  # measured tokens/s over the baseline's
    predicted_speedup: float


def write_csv(points: list[FrontierPoint], path: Path | str) -> Path:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(asdict(points[0])))
    writer.writeheader()
    writer.writerows(asdict(p) for p in points)
    return atomic_write_text(path, buffer.getvalue())


def plot_frontier(points: list[FrontierPoint], tolerance: float, path: Path | str) -> Path:
    """bpb against mean depth and against measured speed-up; the baseline's bpb + tolerance dashed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    base = next(p for p in points if p.depth_penalty is None)
    ours = sorted((p for p in points if p.depth_penalty is not None), key=lambda p: p.depth_penalty)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, x_of, label in ((axes[0], lambda p: p.mean_depth, "mean depth (fraction of layers)"),
                            (axes[1], lambda p: p.speedup, "measured speed-up over baseline (tokens/s ratio)")):
        ax.plot([x_of(p) for p in ours], [p.bpb for p in ours], "o-", color="tab:blue", label="N-vium")
        for p in ours:
            ax.annotate(f"λ={p.depth_penalty:g}", (x_of(p), p.bpb), textcoords="offset points", xytext=(4, 4))
        ax.plot([x_of(base)], [base.bpb], "s", color="black", label="standard transformer")
        ax.axhline(base.bpb + tolerance, ls="--", color="grey", lw=1, label=f"baseline + {tolerance:g} bpb")
        ax.set_xlabel(label)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("validation bits per byte (held-out works)")
    axes[0].invert_xaxis()
    axes[1].legend(loc="best", fontsize=8)
    fig.suptitle("N-vium λ frontier: quality against depth and speed")
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
