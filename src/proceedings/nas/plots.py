"""Norms and scores against the number of edits, base editor beside +NAS (the paper's Fig. 1 view)."""

from __future__ import annotations

import json
from pathlib import Path

from proceedings.nas.stream import combined_norm, load_records


def norm_series(run_dir: str | Path) -> dict[str, list[float]]:
    """Per batch: cumulative edits, ||W||_F / ||W_0||_F over the edit layers, mean ||v0||, raw ||v*||."""
    run_dir = Path(run_dir)
    w0 = combined_norm(json.loads((run_dir / "params.json").read_text())["weight_norm_0"])
    series = {"edits": [], "weight_ratio": [], "v0_norm": [], "v_star_raw_norm": [], "v_star_norm": []}
    edits = 0
    for record in load_records(run_dir):
        edits += record.n_requests
        series["edits"].append(edits)
        series["weight_ratio"].append(combined_norm(record.weight_norm) / w0)
        for key in ("v0_norm", "v_star_raw_norm", "v_star_norm"):
            series[key].append(getattr(record, key))
    return series


def plot_runs(runs: dict[str, str | Path], out: str | Path, title: str = "") -> Path:
    """One PNG: weight-norm ratio, value norms, score S and held-out PPL, one line per run."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(10, 7))
    for label, run_dir in runs.items():
        series = norm_series(run_dir)
        summary = json.loads((Path(run_dir) / "summary.json").read_text())
        evals = [e for e in summary["evals"] if "score" in e]  # the pre-edit entry has capability only
        axes[0, 0].plot(series["edits"], series["weight_ratio"], label=label)
        line, = axes[0, 1].plot(series["edits"], series["v0_norm"], label=f"{label}: mean ||v0||")
        axes[0, 1].plot(series["edits"], series["v_star_raw_norm"], ls="--", color=line.get_color(),
                        label=f"{label}: raw ||v*||")
        axes[1, 0].plot([e["edits"] for e in evals], [e["score"] for e in evals], marker="o", label=label)
        axes[1, 1].plot([e["edits"] for e in summary["evals"]], [e["ppl"] for e in summary["evals"]], marker="o", label=label)
    axes[0, 0].axhline(1.10, color="grey", ls=":", label="+10 %")
    labels = [("||W||_F / ||W_0||_F (edit layers)", None), ("value-vector norms", None),
              ("score S = mean(Eff, Gen, Spe), all edits so far", None), ("held-out perplexity", "log")]
    for ax, (ylabel, scale) in zip(axes.flat, labels):
        ax.set_xlabel("number of edits")
        ax.set_ylabel(ylabel)
        if scale:
            ax.set_yscale(scale)
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
    fig.suptitle(title or "sequential editing: base editor vs +NAS")
    fig.tight_layout()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
