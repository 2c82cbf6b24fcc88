"""The lambda frontier: what each depth penalty costs in bits per byte and buys in speed (spec §2.2).

One initial model, copied: the matched baseline (single exit), the shallow reference (only as deep as
the first exit) and one N-vium per lambda are trained from the same weights on the same batches, then
evaluated and benchmarked together. "No perplexity cost" is read off the frontier as the largest
lambda whose bits per byte stay within the tolerance of the baseline's, not claimed for a single point.
"""

from __future__ import annotations

import copy
import csv
import io
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from proceedings.core.errors import ProceedingsError
from proceedings.core.runtime import atomic_write_text
from proceedings.nvium.baselines import matched_baseline
from proceedings.nvium.data import Corpus
from proceedings.nvium.model import NviumForCausalLM
from proceedings.nvium.training import TrainConfig, TrainRecord, train

BASELINE = "baseline"
SHALLOW = "shallow"


def lambda_name(depth_penalty: float) -> str:
    return f"nvium-lambda{depth_penalty:g}"


@dataclass
class TrainedModel:
    model: NviumForCausalLM
    record: TrainRecord
    depth_penalty: float | None  # None for the two standard transformers


def train_family(init: NviumForCausalLM, corpus: Corpus, cfg: TrainConfig, lambdas: tuple[float, ...],
                 runs_dir: Path, progress: bool = True) -> dict[str, TrainedModel]:
    """Baseline, shallow reference and one N-vium per lambda, all from `init`'s weights, in runs_dir/<name>.

    A model already trained there is loaded from its checkpoint; a SIGTERM checkpoints the model in
    training and stops the whole family (one-line error), so running the same call again resumes it.
    """
    untrained = {BASELINE: (matched_baseline(init), None),
                 SHALLOW: (matched_baseline(init, n_layer=init.config.exits[0]), None)}
    untrained.update({lambda_name(lam): (copy.deepcopy(init), lam) for lam in lambdas})
    # every lambda is checked (TrainConfig refuses lambda < 0) before anything trains
    settings = {name: replace(cfg, depth_penalty=lam or 0.0) for name, (_, lam) in untrained.items()}
    family = {}
    for name, (model, depth_penalty) in untrained.items():
        record = train(model, corpus, settings[name], runs_dir / name, progress=progress)
        if record.interrupted:
            raise ProceedingsError(f"stopped while training {name} (step {record.step} of {cfg.steps} checkpointed "
                                   f"in {runs_dir / name}); run the same command again to resume")
        family[name] = TrainedModel(model, record, depth_penalty)
    return family


@dataclass
class FrontierPoint:
    name: str
    depth_penalty: float | None
    bpb: float
    mean_depth: float  # expected layers used per token under the router, as a fraction of the baseline's
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

    base = next(p for p in points if p.name == BASELINE)
    shallow = next(p for p in points if p.name == SHALLOW)
    ours = sorted((p for p in points if p.depth_penalty is not None), key=lambda p: p.depth_penalty)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, x_of, label in ((axes[0], lambda p: p.mean_depth, "mean depth (fraction of the baseline's layers)"),
                            (axes[1], lambda p: p.speedup, "measured speed-up over baseline (tokens/s ratio)")):
        ax.plot([x_of(p) for p in ours], [p.bpb for p in ours], "o-", color="tab:blue", label="N-vium")
        for p in ours:
            ax.annotate(f"λ={p.depth_penalty:g}", (x_of(p), p.bpb), textcoords="offset points", xytext=(4, 4))
        ax.plot([x_of(base)], [base.bpb], "s", color="black", label="standard transformer (matched)")
        ax.plot([x_of(shallow)], [shallow.bpb], "^", color="tab:red", label="standard, as deep as the first exit")
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
