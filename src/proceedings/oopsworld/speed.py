"""Costs for the README (issue 31, "Speed"): render ms/frame, MiniLM ms/prompt, s/step of teacher forcing
and of distillation, rollout frames/s, Farneback ms/pair, peak RSS. Each is measured in CPU time of this
process (one torch thread), which a busy shared machine inflates far less than wall time."""

from __future__ import annotations

import resource
import time

import numpy as np


def _cpu(fn, repeat: int) -> float:
    start = time.process_time()
    for _ in range(repeat):
        fn()
    return (time.process_time() - start) / repeat


def measure(channels: tuple[int, int, int] = (16, 32, 64), batch: int = 16, steps: int = 3) -> dict[str, float]:
    import torch

    from proceedings.core.runtime import set_threads
    from proceedings.oopsworld.data import sample_episode
    from proceedings.oopsworld.encoders import MiniLMTokens
    from proceedings.oopsworld.generator import ChunkGenerator, GeneratorConfig, rollout
    from proceedings.oopsworld.metrics import flow
    from proceedings.oopsworld.training import DistillConfig, TrainConfig, segment_data, train_distill, train_forcing
    from proceedings.oopsworld.world import render

    set_threads()
    episodes = [sample_episode(s, segments=3) for s in range(4)]
    data = segment_data(episodes, "structured")
    scene = episodes[0].scenes[0]
    out = {"render_ms_per_frame": 1000 * _cpu(lambda: render(scene, 3, 0), 50)}
    encoder = MiniLMTokens()
    prompts = [f"turn the {c} box red number {k}" for k, c in enumerate(("blue", "green", "yellow") * 4)]
    start = time.process_time()
    with torch.no_grad():  # the uncached cost: tokenizer + forward of one prompt
        for p in prompts:
            encoder.model(**encoder.tokenizer([p], return_tensors="pt"))
    out["minilm_ms_per_prompt"] = 1000 * (time.process_time() - start) / len(prompts)
    torch.manual_seed(0)
    model = ChunkGenerator(GeneratorConfig(channels=channels))
    config = TrainConfig(steps=steps, batch=batch)
    out["teacher_forcing_s_per_step"] = _cpu(lambda: train_forcing(model, data, "explicit", config), 1) / steps
    student = ChunkGenerator(GeneratorConfig(channels=channels))
    out["distillation_s_per_step"] = _cpu(lambda: train_distill(student, model, data, config, DistillConfig()), 1) / steps
    history, _ = data.chunk(np.arange(4) * data.segments)
    tokens = [data.tokens("implicit", np.arange(4) * data.segments + s) for s in range(data.segments)]
    seconds = _cpu(lambda: rollout(model, history, [t[0] for t in tokens], [t[1] for t in tokens]), 2)
    out["rollout_frames_per_s"] = 4 * data.segments * data.frames_per_segment / seconds
    a, b = episodes[0].frames[5], episodes[0].frames[6]
    out["farneback_ms_per_pair"] = 1000 * _cpu(lambda: flow(a, b), 50)
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {k: round(v, 4) for k, v in out.items()}
