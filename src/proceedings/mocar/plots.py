"""Scenario drawings: map chunks, neighbours, the focal agent's history and future, K forecasts."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from proceedings.mocar.scenarios import Scenes


def draw_scenario(scenes: Scenes, index: int, forecast: dict | None, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    obs = scenes.observed
    fig, ax = plt.subplots(figsize=(5.5, 5.5))
    for chunk, valid, inter in zip(scenes.map_points[index], scenes.map_valid[index], scenes.map_intersection[index]):
        if valid:
            ax.plot(chunk[:, 0], chunk[:, 1], color="0.6" if inter else "0.8", lw=3, solid_capstyle="round")
    for track, valid in zip(scenes.neighbours[index], scenes.neighbour_valid[index]):
        if valid.any():
            ax.plot(track[valid, 0], track[valid, 1], color="tab:gray", lw=1)
    focal = scenes.focal[index]
    ax.plot(focal[:obs, 0], focal[:obs, 1], color="tab:blue", lw=2, label="history")
    ax.plot(scenes.focal_clean[index, obs - 1:, 0], scenes.focal_clean[index, obs - 1:, 1], color="tab:green", lw=2,
            label="future (exact)")
    if forecast:
        for k, (mode, p) in enumerate(zip(np.asarray(forecast["points"]), forecast["probabilities"])):
            ax.plot(mode[:, 0], mode[:, 1], color="tab:red", alpha=0.3 + 0.7 * p, lw=1.2,
                    label="forecast" if k == 0 else None)
    ax.set_aspect("equal")
    ax.set_title(scenes.scenario_id[index] + (" (turn-heavy)" if scenes.turn_heavy[index] else ""), fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return Path(path)
