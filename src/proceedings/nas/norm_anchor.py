"""NAS itself (paper §3, spec §2.3): anchor every solved value vector to a reference norm rho.

    v* <- v* * rho / (||v*|| + eps)                                   (the one line)

rho_l is measured once on the unedited model: solve v* for N_ref requests with the base editor's
hyperparameters, drop the largest 5 % of ||v*||, and average the rest. Because rho never changes
while the weights drift, the loop "bigger W -> bigger v* -> bigger update -> bigger W" is cut.
The public code also skips an edit whose raw ||v*|| exceeds 2 rho (`skip_factor`); skipped edits
keep v* = v0 (no change) and are logged.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from proceedings.core.runtime import atomic_write_text

if TYPE_CHECKING:
    import torch

log = logging.getLogger(__name__)


@dataclass
class Anchored:
    v_star: "torch.Tensor"  # (n, d) after scaling (or v0 where skipped)
    skipped: "torch.Tensor"  # (n,) bool


def anchor(v_star: "torch.Tensor", v0: "torch.Tensor", rho: float, skip_factor: float | None,
           eps: float = 1e-8) -> Anchored:
    """Rescale each row of v_star to norm rho; rows above skip_factor * rho fall back to v0."""
    import torch

    norms = v_star.norm(dim=1, keepdim=True)
    scaled = v_star * (rho / (norms + eps))
    skipped = torch.zeros(len(v_star), dtype=torch.bool, device=v_star.device)
    if skip_factor is not None:
        skipped = norms.squeeze(1) > skip_factor * rho
        if skipped.any():
            log.info("NAS skipped %d edit(s): raw ||v*|| above %.1f x rho", int(skipped.sum()), skip_factor)
        scaled = torch.where(skipped[:, None], v0, scaled)
    return Anchored(scaled, skipped)


def trimmed_mean(values: Sequence[float], quantile: float) -> float:
    """Mean of the values at or below the `quantile` (the upper tail is dropped)."""
    import numpy as np

    array = np.asarray(values, dtype=np.float64)
    return float(array[array <= np.quantile(array, quantile)].mean())


def reference_norm(solve_norms: Callable[[], list[float]], cache_file: Path, key: dict,
                   quantile: float) -> float:
    """rho from the cache when `key` matches exactly, else from `solve_norms()` (then cached).

    `key` holds the model hash, layer, N_ref, the value-solve hyperparameters, the trimming rule
    and the reference requests; any difference means recomputing, never silent reuse.
    """
    if cache_file.exists():
        entry = json.loads(cache_file.read_text())
        if entry.get("key") == key:
            return float(entry["rho"])
        log.info("rho cache %s was made for other settings; recomputing", cache_file)
    norms = solve_norms()
    rho = trimmed_mean(norms, quantile)
    entry = {"key": key, "rho": rho, "raw_norms": norms, "created": time.strftime("%Y-%m-%dT%H:%M:%S")}
    atomic_write_text(cache_file, json.dumps(entry, indent=1))
    return rho
