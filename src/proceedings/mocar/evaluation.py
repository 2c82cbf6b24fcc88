"""Forecast a set of scenes with any arm and score it; how well each code space reproduces futures."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import torch

from proceedings.mocar.batch import make_batch
from proceedings.mocar.forecast import Forecast
from proceedings.mocar.frames import compose, to_global, to_local, wrap
from proceedings.mocar.metrics import PerScenario, off_road_rate, per_scenario, summarise
from proceedings.mocar.scenarios import Scenes

Predictor = Callable[..., Forecast]


def model_device(model: torch.nn.Module) -> torch.device:
    return next(model.parameters()).device


def forecast_all(predict: Predictor, scenes: Scenes, future_steps: int | None = None, batch: int = 64) -> dict:
    """Run `predict(batch)` over every scene; returns points (n, K, T, 2), probabilities, clamps, timing."""
    points, probs, clamped, wall = [], [], 0, 0.0
    for start in range(0, len(scenes), batch):
        b = make_batch(scenes, np.arange(start, min(start + batch, len(scenes))), future_steps)
        t0 = time.perf_counter()
        with torch.no_grad():
            out = predict(b)
        wall += time.perf_counter() - t0
        points.append(out.points.detach().cpu().double().numpy())
        probs.append(out.probabilities.detach().cpu().double().numpy())
        clamped += out.clamped
    return {"points": np.concatenate(points), "probabilities": np.concatenate(probs), "clamped": clamped,
            "ms_per_scenario": 1000 * wall / max(len(scenes), 1)}


def score(forecast: dict, scenes: Scenes, future_steps: int | None = None) -> tuple[dict, PerScenario]:
    """The AV2 table against the exact future, off-road rate and clamp count; per-scenario numbers too."""
    obs = scenes.observed
    steps = forecast["points"].shape[2]
    truth = scenes.focal_clean[:, obs:obs + steps].astype(np.float64)
    if future_steps is not None and steps != future_steps:
        raise ValueError(f"forecast has {steps} steps, expected {future_steps}")
    scores = per_scenario(forecast["points"], forecast["probabilities"], truth)
    table = summarise(scores)
    table["off_road"] = off_road_rate(forecast["points"][:, :, -1], scenes.lanes_of())
    table["clamped_segments"] = forecast["clamped"]
    table["ms_per_scenario"] = forecast["ms_per_scenario"]
    return table, scores


def code_space_ade(encode_decode: Callable, scenes: Scenes, batch: int = 256, device: torch.device | str = "cpu") -> float:
    """Mean ADE (m) of futures rebuilt segment by segment through a code space, closed loop, against the
    exact future (the ground truth every metric uses; the segments fed in carry the 0.1 m noise).

    From the current frame, each observed future segment is seen from the frame reached so far,
    passed through `encode_decode(points, end_heading) -> (points, transition)` and the frame moves by
    the *decoded* transition, as a forecaster's rollout would.
    """
    errors = []
    for start in range(0, len(scenes), batch):
        b = make_batch(scenes, np.arange(start, min(start + batch, len(scenes)))).to(device)
        frame = b.frames()[:, b.history]
        rebuilt = []
        with torch.no_grad():
            for a, c in zip(b.times[b.history:-1], b.times[b.history + 1:]):
                local = to_local(b.xy[:, a + 1:c + 1], frame)
                rel_heading = wrap(b.heading[:, a + 1:c + 1] - frame[:, None, 2])
                pts, transition = encode_decode(local, rel_heading)
                rebuilt.append(to_global(pts, frame))
                frame = compose(frame, transition)
        rebuilt = torch.cat(rebuilt, dim=1)
        errors.append((rebuilt - b.clean_future).norm(dim=-1).mean(-1).cpu())
    return float(torch.cat(errors).mean())


def teacher_forced_min_ade6(model, scenes: Scenes, batch: int = 64) -> float:
    """MoCAR's minADE6 (m) in its training view, against the exact future: every input code is the posterior
    code of the true segment and only the transitions are its own (`MoCAR.teacher_forced`). Beside the
    rollout's minADE6, where each input is the model's own previous code, it measures exposure bias."""
    errors = []
    for start in range(0, len(scenes), batch):
        b = make_batch(scenes, np.arange(start, min(start + batch, len(scenes)))).to(model_device(model))
        with torch.no_grad():
            points, headings, _ = b.segments()
            trajectory, _, _ = model.teacher_forced(b, model.tokenizer.encode(points, headings)[0])
        errors.append((trajectory - b.clean_future[:, None]).norm(dim=-1).mean(-1).min(1).values.cpu())
    return float(torch.cat(errors).mean())
