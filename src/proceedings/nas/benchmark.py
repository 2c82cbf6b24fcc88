"""Speed benchmark (issue: seconds per edit per editor with and without NAS, C_0 time, peak memory).

All configurations run side by side in one process on the same model and requests, so their ratio
is meaningful even on a shared machine. NAS's own cost is also timed in isolation (the rescale).
"""

from __future__ import annotations

import copy
import resource
import tempfile
import time
from pathlib import Path

from proceedings.core.runtime import stopwatch
from proceedings.nas.editing import Editor
from proceedings.nas.hparams import EditHparams
from proceedings.nas.loop_gain import probe_loop_gain, probe_requests
from proceedings.nas.norm_anchor import anchor


def run_benchmark(model, tok, n_edits: int = 3, stats_tokens: int = 5_000, n_ref: int = 8) -> list[dict]:
    """One row per configuration: seconds per edit (wall and CPU), plus the C_0 and rho costs.

    The value solve uses the settings of the scale that fits the model (tiny or small presets).
    """
    from dataclasses import replace

    from proceedings.nas.experiment import CONFIGS, stream_requests

    scale = "tiny" if model.config.num_hidden_layers <= 8 else "small"
    cfg = replace(CONFIGS[scale], model=scale, n_edits=n_edits, nas_n_ref=n_ref, stats_tokens=stats_tokens)
    requests, reference = stream_requests(model, tok, cfg, seed=0)
    rows = []
    with tempfile.TemporaryDirectory() as cache:
        for method in ("memit", "alphaedit", "rome"):
            for nas in (False, True):
                overrides = {k: v for k, v in cfg.edit_overrides.items() if method != "rome" or k != "layers"}
                hp = EditHparams.for_model(model, method=method, nas=nas, stats_tokens=stats_tokens, nas_n_ref=n_ref,
                                           v_num_grad_steps=cfg.v_num_grad_steps, **overrides)
                editor = Editor(copy.deepcopy(model), tok, hp, cache_dir=Path(cache))
                with stopwatch() as prep:
                    editor.prepare(reference)
                with stopwatch() as took:
                    steps = [editor.edit([request]).solve_steps for request in requests[:n_edits]]
                rows.append({"editor": f"{method}{'+NAS' if nas else ''}", "s_per_edit": took.wall_s / n_edits,
                             "cpu_s_per_edit": took.cpu_s / n_edits, "solve_steps": sum(steps) / len(steps),
                             "prepare_s": prep.wall_s})
                if method == "memit":  # one loop-gain probe (4 scales of one request) per arm
                    probe = probe_loop_gain(editor, probe_requests(scale, 1))
                    rows.append({"editor": f"loop-gain probe, {method}{'+NAS' if nas else ''}",
                                 "s_per_edit": float("nan"), "cpu_s_per_edit": float("nan"),
                                 "solve_steps": sum(probe.solve_steps) / len(probe.solve_steps),
                                 "prepare_s": probe.seconds})
    nothing = {"cpu_s_per_edit": float("nan"), "solve_steps": float("nan")}
    rows.append({"editor": "NAS rescale alone", "s_per_edit": _anchor_seconds(model.config.hidden_size), **nothing,
                 "prepare_s": float("nan")})
    stats_hp = EditHparams.for_model(model, stats_tokens=stats_tokens)
    rows.append({"editor": f"C_0 ({stats_tokens} tokens, {len(stats_hp.layers)} layers)", "s_per_edit": float("nan"),
                 **nothing, "prepare_s": _stats_seconds(model, tok, stats_hp)})
    rows.append({"editor": "peak RSS (GiB)", "s_per_edit": float("nan"), **nothing,
                 "prepare_s": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20})
    return rows


def _anchor_seconds(hidden: int, repeats: int = 1000) -> float:
    import torch

    v_star, v0 = torch.randn(1, hidden), torch.randn(1, hidden)
    started = time.perf_counter()
    for _ in range(repeats):
        anchor(v_star, v0, 1.0, 2.0)
    return (time.perf_counter() - started) / repeats


def _stats_seconds(model, tok, hp: EditHparams) -> float:
    with tempfile.TemporaryDirectory() as cache, stopwatch() as took:
        Editor(model, tok, hp, cache_dir=Path(cache)).covariances()
    return took.wall_s
