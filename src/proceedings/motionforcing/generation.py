"""Generation from user controls, the Python API behind `motionforcing generate` (spec §2.1, §6).

`load_run(folder)` gives a trained run's preset and arms; `controls(...)` turns I0, its depth, instance
masks and a traj.json (dict) into the condition videos (point video, ego warp) and the model inputs;
`generate(arms, c)` runs stage 1 (with MPR) then stage 2: points -> depth -> RGB.

    cfg, arms = load_run(Path("runs/mf"))
    c = controls(cfg, rgb0, depth0, masks, traj)      # c.points (T, 3, H, W), c.warp (T, H, W) metres
    depth, rgb = generate(arms, c)                     # (T, H, W) metres, (T, 3, H, W) in [0, 1]
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.motionforcing.camera import Intrinsics
from proceedings.motionforcing.comparison import Arms, train_arms
from proceedings.motionforcing.conditions import ego_warp, mask, point_video
from proceedings.motionforcing.dataset import Batch, metres, normalise_depth
from proceedings.motionforcing.experiment import CONFIGS, ExperimentConfig
from proceedings.motionforcing.stages import appearance, shape
from proceedings.motionforcing.waypoints import check_depth, ego_poses, from_waypoints, parse_traj, resolve_overlaps


@dataclass
class Controls:
    points: np.ndarray  # (T, 3, H, W) point video
    warp: np.ndarray  # (T, H, W) ego-warp depth in metres (0 = hole)
    batch: Batch  # the model inputs (batch of one)


def load_run(run: Path) -> tuple[ExperimentConfig, Arms]:
    """The preset and the arms of a run folder written by `motionforcing train` (every network finished)."""
    config = run / "config.json"
    if not config.is_file():
        raise ProceedingsError(f"run folder '{run}' has no config.json; train one with `motionforcing train --out {run}`")
    meta = json.loads(config.read_text())
    cfg = CONFIGS[meta["scale"]]
    return cfg, train_arms(cfg, _Unfinished(), meta["seed"], run, temporal=meta.get("temporal", "channels"))


class _Unfinished:
    """The training data of a finished run: never read; a run that is not finished must be trained first."""

    def __getattr__(self, name):
        raise ProceedingsError("this run is not finished training; run `motionforcing train` again to resume it")


def controls(cfg: ExperimentConfig, rgb0: np.ndarray, depth0: np.ndarray, masks: dict[int, np.ndarray],
             traj: dict | str) -> Controls:
    """rgb0 (H, W, 3) in [0, 1], depth0 (H, W) metres, masks id -> (H, W) bool, traj a traj.json (dict or text;
    validated here; `causal` masks every point after frame T/2)."""
    if rgb0.shape[:2] != (cfg.size, cfg.size):
        raise ProceedingsError(f"image is {rgb0.shape[1]}x{rgb0.shape[0]}, the run generates {cfg.size}x{cfg.size}")
    check_depth(depth0, cfg.size)
    masks = resolve_overlaps(masks, depth0)
    spec = parse_traj(traj if isinstance(traj, str) else json.dumps(traj), masks, cfg.size, cfg.size)
    T, K = cfg.frames, Intrinsics.for_size(cfg.size)
    if spec["frames"] != T:
        raise ProceedingsError(f"traj.json asks for {spec['frames']} frames; this run generates {T}")
    ego = spec.get("ego") or {}
    cams = ego_poses(T, ego.get("waypoints"), ego.get("speed_weights"))
    tracks = from_waypoints(masks, {o["mask_id"]: o["waypoints"] for o in spec["objects"]}, depth0, K, T, cams)
    given = mask("future:" + str(T // 2) if spec.get("causal") else "full", len(tracks.ids), T)
    points, valid = point_video(tracks.centres, tracks.depths, tracks.radii0, given, cfg.size)
    static = ~np.any(list(masks.values()), axis=0) if masks else np.ones_like(depth0, bool)
    warp = ego_warp(depth0, static, K, cams)
    d0 = torch.from_numpy(normalise_depth(depth0.astype(np.float32)))[None, None]
    b = Batch(image0=torch.from_numpy(np.ascontiguousarray(rgb0.transpose(2, 0, 1), np.float32))[None], depth0=d0,
              points=torch.from_numpy(points)[None],
              valid=torch.from_numpy(valid)[None, :, None, None, None].expand(1, T, 1, cfg.size, cfg.size),
              warp=torch.from_numpy(normalise_depth(warp))[None, :, None], depth=d0, rgb=None, given=given[None])
    return Controls(points, warp, b)


@torch.no_grad()
def generate(arms: Arms, c: Controls) -> tuple[np.ndarray, np.ndarray]:
    """Points -> depth (stage 1 with MPR) -> RGB (stage 2): depth (T, H, W) metres, RGB (T, 3, H, W) in [0, 1]."""
    depth = shape(arms.stage1_mpr, c.batch)
    rgb = appearance(arms.stage2, c.batch.image0, depth).clamp(0, 1)
    return metres(depth)[0, :, 0].numpy(), rgb[0].numpy()
