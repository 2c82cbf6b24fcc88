"""The curriculum and coupled-teacher ablations (spec §2.5 and §5 claim 3; issue 31: README only, not the verdict).

Both start where OopsWorld's distillation starts (B2's weights at N/2) and get the same N/2 distillation steps.
`no_curriculum` draws every stage's segments from the first step (uniform mixing instead of the dynamics
curriculum); `coupled_teacher` distils from a teacher conditioned on the operation like the student (B2 after its N
steps, fed the operation tokens) instead of the scene-prompted teacher, so nothing is decoupled. They are read on the
high-dynamic / composite split (the preset's high-dynamic operators, one or two per boundary) from GT history:
change and anchor accuracy, dynamic degree and its excess over GT; claim 3 asks curriculum >= no curriculum on
change accuracy and dynamic degree.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from proceedings.oopsworld.data import HIGH_DYNAMIC, build_episodes
from proceedings.oopsworld.evaluate import generate_from_gt, gt_videos, score_videos
from proceedings.oopsworld.generator import ChunkGenerator
from proceedings.oopsworld.probes import SchemaReaders
from proceedings.oopsworld.taxonomy import OPERATORS
from proceedings.oopsworld.training import DistillConfig, segment_data

ABLATIONS = ("no_curriculum", "coupled_teacher")
SPLIT_SEEDS = 30_000_000  # the ablation split's episode seeds (training 0.., benchmark 10M, easy split 20M)


def ablation_setting(name: str, arms: dict[str, ChunkGenerator], distill: DistillConfig
                     ) -> tuple[ChunkGenerator, DistillConfig]:
    """The frozen teacher and distillation setting of ablation `name`, given the trained teacher and B2."""
    if name == "no_curriculum":
        return arms["teacher"], replace(distill, curriculum=False)
    if name == "coupled_teacher":
        return arms["b2"], replace(distill, teacher_surface="implicit")
    raise ValueError(f"unknown ablation '{name}'; known: {', '.join(ABLATIONS)}")


def ablation_split(config) -> list:
    """The high-dynamic / composite split: 3-segment episodes whose boundaries hold 1-2 of the preset's high-dynamic
    operators (all of its operators when it has none)."""
    operators = tuple(o for o in (config.operators or tuple(OPERATORS)) if o in HIGH_DYNAMIC) or config.operators
    return build_episodes(range(SPLIT_SEEDS, SPLIT_SEEDS + config.easy_episodes), segments=3, stage=4,
                          frames=config.frames, size=config.size, max_objects=config.max_objects, depths=(1, 2),
                          operators=operators)


def score_ablations(config, arms: dict[str, ChunkGenerator]) -> dict:
    """OopsWorld and each ablation on the split, generated from GT history on the operation surface."""
    episodes = ablation_split(config)
    data, readers = segment_data(episodes, config.encoder), SchemaReaders(config.size)
    dd_gt = float(np.nanmean(score_videos(gt_videos(data), episodes, readers, with_quality=False).dd))
    out: dict = {"split": f"{len(episodes)} episodes x 3 segments, high-dynamic operators, 1-2 per boundary",
                 "dd_gt": round(dd_gt, 4)}
    for name in ("oopsworld", *ABLATIONS):
        summary = score_videos(generate_from_gt(arms[name], data, "implicit"), episodes, readers,
                               with_quality=False).summary(dd_gt)
        out[name] = {k: summary[k] for k in ("change_acc", "anchor_acc", "dynamic_degree", "excess_dynamic_degree")}
    return out
