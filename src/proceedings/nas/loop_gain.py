"""The norm-feedback loop's gain, measured directly (paper §3; the gate of the comparison).

The paper's loop: bigger edited weights W -> bigger solved v* -> bigger update Delta W -> bigger W.
Whether it can run in a setting is a measurable property of the editor, not of a whole stream: take
the current weights, scale every edit layer's W by s (1.0, 1.1, 1.2, 1.3), re-solve one fixed probe
batch on each scaled model, let the editor compute its update (then undo it), and read off

    gain(v*)     = d log||v*|| / d log||W||      (mean ||v*|| over the probe batch, after NAS)
    gain(update) = d log||Delta W|| / d log||W||

as least-squares slopes over the scales (elasticities: a gain of 1 means the update grows in
proportion to W). Updates that add to W nearly orthogonally (measured in round 1: within 0.3 %)
grow ||W||^2 by ||Delta W||^2 per batch, so with gain(update) = g the norm follows
d||W||/dn ~ ||W||^(2g-1): faster than linear only when g > 1/2, exponential at g = 1. NAS pins
||v*|| to rho, so its gain(v*) is 0 by construction; its update gain is what the probe shows.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Sequence

from proceedings.nas.editing import Editor
from proceedings.nas.model_layout import edit_weight
from proceedings.nas.requests import EditRequest
from proceedings.nas.stream import combined_norm

SCALES = (1.0, 1.1, 1.2, 1.3)  # the probe
PROBE_SEED = 1  # the probe batch: table facts drawn with this seed (rho's pool uses REFERENCE_SEED)
SUPERLINEAR_GAIN = 0.5  # gain(update) above which orthogonally added updates grow ||W|| faster than linearly


@dataclass
class LoopGainProbe:
    """One probe batch re-solved on the weights scaled by each s (one entry per scale)."""

    scales: list[float]
    weight_norm: list[float] = field(default_factory=list)  # ||W|| over the edit layers, after scaling
    v_star_norm: list[float] = field(default_factory=list)  # mean over the probe requests, after NAS
    v_star_raw_norm: list[float] = field(default_factory=list)
    delta_norm: list[float] = field(default_factory=list)
    update_norm: list[float] = field(default_factory=list)  # ||Delta W|| over the edit layers
    solve_steps: list[float] = field(default_factory=list)
    cap_hit: list[float] = field(default_factory=list)
    clamp_hit: list[float] = field(default_factory=list)
    seconds: float = 0.0

    def gains(self) -> dict[str, float]:
        """Elasticities of ||v*||, raw ||v*||, ||delta|| and ||Delta W|| with respect to ||W||."""
        x = [math.log(w) for w in self.weight_norm]
        return {name: _slope(x, [math.log(max(v, 1e-30)) for v in values]) for name, values in
                (("v_star", self.v_star_norm), ("v_star_raw", self.v_star_raw_norm), ("delta", self.delta_norm),
                 ("update", self.update_norm))}

    def to_json(self) -> dict:
        return {**asdict(self), "gains": self.gains()}


def probe_loop_gain(editor: Editor, requests: Sequence[EditRequest], scales: Sequence[float] = SCALES) -> LoopGainProbe:
    """Re-solve `requests` (one batch) on the editor's weights scaled by each s; the weights and
    AlphaEdit's cache are restored afterwards, so the probe leaves the editor as it found it."""
    import time

    import torch

    started = time.perf_counter()
    original = editor.state()
    probe = LoopGainProbe(scales=[float(s) for s in scales])
    try:
        for scale in scales:
            with torch.no_grad():
                for layer, weight in original["weights"].items():
                    edit_weight(editor.model, editor.layout, layer).copy_(weight * scale)
            probe.weight_norm.append(combined_norm(editor.weight_norms()))
            record = editor.edit(list(requests))
            if record.status != "ok":
                raise FloatingPointError(f"the probe batch failed numerically at scale {scale}")
            probe.update_norm.append(combined_norm(record.update_norm))
            for name in ("v_star_norm", "v_star_raw_norm", "delta_norm", "solve_steps", "cap_hit", "clamp_hit"):
                getattr(probe, name).append(getattr(record, name))
            editor.load_state(original)
    finally:
        editor.load_state(original)
    probe.seconds = time.perf_counter() - started
    return probe


def probe_requests(model_spec: str, n: int) -> list[EditRequest]:
    """The fixed probe batch: table facts for a real model, invented facts for the tiny one."""
    from proceedings.nas.facts import invented_tables, table_requests

    return table_requests(n, PROBE_SEED, invented_tables(seed=0) if model_spec == "tiny" else None)


def _slope(x: Sequence[float], y: Sequence[float]) -> float:
    """Least-squares slope of y on x."""
    mx, my = sum(x) / len(x), sum(y) / len(y)
    sxx = sum((a - mx) ** 2 for a in x)
    return sum((a - mx) * (b - my) for a, b in zip(x, y)) / sxx
