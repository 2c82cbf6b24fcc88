"""Supervising the generator's object layers with the world's own geometry (round 19; spec §2.5, issue 31).

The layered warp (`GeneratorConfig.layers`) splits the last history frame into a background and J object layers
and moves each by a per-frame displacement; unsupervised, the split and the moves are learned from pixels alone
(round 13: start_motion 0.00, pans lost at 150-300 steps). The sprite world knows both exactly: which object covers
each pixel of the last history frame (its footprint: body and outline, the halo when it glows; later objects on top,
as they are drawn) and where each object and the background are on screen in each of the segment's K frames. This
module computes those targets per segment and the auxiliary loss: pixel-wise cross-entropy of the layer split plus
the L1 of the displacements (pixels / SHIFT_PX), minimised over the assignments of objects to layers (the layers
are unordered: nothing on screen says which object is "o1").
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from proceedings.oopsworld.data import Episode
from proceedings.oopsworld.world import VIEW, render_state, shape_mask, trajectory, view_axes

SHIFT_PX = 4.0  # a displacement error of this many pixels costs as much as 1 nat of the split's cross-entropy
IGNORE = -100  # label of pixels the loss skips (objects beyond the model's J layers)


@dataclass
class LayerTargets:
    """Per segment: the last history frame's layer labels (N, H, W; 0 background, n = the n-th object by id), each
    layer's per-frame screen displacement from that frame (N, K, 1 + M, 2; (dx, dy) px) and which objects exist
    (N, M)."""

    labels: np.ndarray
    shifts: np.ndarray
    present: np.ndarray

    def take(self, ids: np.ndarray) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return (torch.from_numpy(self.labels[ids]).long(), torch.from_numpy(self.shifts[ids]),
                torch.from_numpy(self.present[ids]))


def footprints(scene: dict, size: int) -> np.ndarray:
    """Labels (size, size) int64 of a rendered scene: 0 background, n where the n-th object (by id) is drawn on top."""
    cam = scene["global"]["camera"]
    xs, ys = view_axes(cam, size)
    wx, wy = np.meshgrid(xs, ys, indexing="xy")
    labels = np.zeros((size, size), np.int64)
    for n, obj in enumerate(render_state(scene, scene, 1.0, 0)["local"], 1):
        theta = np.deg2rad(float(obj["rot"]))
        dx, dy = (wx - obj["pos"][0]) / obj["radius"], (wy - obj["pos"][1]) / obj["radius"]
        u, v = np.cos(theta) * dx + np.sin(theta) * dy, -np.sin(theta) * dx + np.cos(theta) * dy
        reach = 1.5 if obj["glow"] else 1.2  # halo or outline
        labels[shape_mask(obj["category"], u / reach, v / reach)] = n
    return labels


def segment_targets(scene: dict, program, frames: int, size: int, objects: int) -> tuple[np.ndarray, np.ndarray]:
    """Screen displacements (K, 1 + objects, 2) of the background and of each object of `scene` (by id) in the
    segment's K frames from the segment's start, and which objects exist (objects,)."""
    cam0 = scene["global"]["camera"]
    px = size * float(cam0["zoom"]) / VIEW
    start = {o["id"]: np.array(o["pos"], float) for o in scene["local"]}
    ids = sorted(start)[:objects]
    shifts = np.zeros((frames, 1 + objects, 2), np.float32)
    for k, state in enumerate(trajectory(scene, program, frames, len(scene["local"]) + len(program.ops)), 1):
        cam = state["global"]["camera"]
        pan = np.array([cam["x"] - float(cam0["x"]), cam["y"] - float(cam0["y"])])
        shifts[k - 1, 0] = -pan * size * cam["zoom"] / VIEW
        where = {o["id"]: np.array(o["pos"], float) for o in reversed(state["local"])}  # replace: first entry
        for n, oid in enumerate(ids, 1):
            if oid in where:
                shifts[k - 1, n] = (where[oid] - np.array([cam["x"], cam["y"]])) * size * cam["zoom"] / VIEW \
                    - (start[oid] - np.array([float(cam0["x"]), float(cam0["y"])])) * px
    return shifts, np.arange(objects) < len(ids)


def layer_targets(episodes: list[Episode], size: int) -> LayerTargets:
    """Targets of every segment of `episodes` (segments in episode order, as `SegmentData` flattens them)."""
    objects = max(1, max(len(sc["local"]) for ep in episodes for sc in ep.scenes[:-1]))
    labels, shifts, present = [], [], []
    for ep in episodes:
        for s, program in enumerate(ep.programs):
            labels.append(footprints(ep.scenes[s], size))
            shift, here = segment_targets(ep.scenes[s], program, program.frames, size, objects)
            shifts.append(shift)
            present.append(here)
    return LayerTargets(np.stack(labels), np.stack(shifts), np.stack(present))


def layer_loss(logits: torch.Tensor, shift: torch.Tensor, labels: torch.Tensor, target: torch.Tensor,
               present: torch.Tensor) -> torch.Tensor:
    """The model's split logits (B, J+1, H, W) and displacements (B, K, J+1, 2) against the targets (labels (B, H, W),
    target (B, K, 1+M, 2), present (B, M)): cross-entropy + L1 / SHIFT_PX, each sample at its best assignment of
    objects to the J object layers; objects beyond J are skipped."""
    j, m = logits.shape[1] - 1, target.shape[2] - 1
    if m > j:
        labels = labels.masked_fill(labels > j, IGNORE)
        target, present = target[:, :, :j + 1], present[:, :j]
    pad = j - target.shape[2] + 1
    target = F.pad(target, (0, 0, 0, pad))
    present = F.pad(present, (0, pad))
    weight = torch.cat([present.new_ones(present.shape[0], 1), present], 1).float()  # background + present objects
    costs = []
    for perm in itertools.permutations(range(1, j + 1)):  # object n of the targets -> layer perm[n - 1]
        order = [0, *perm]
        ce = F.cross_entropy(logits[:, order], labels, ignore_index=IGNORE, reduction="none")
        ce = ce.sum((1, 2)) / (labels != IGNORE).sum((1, 2)).clamp(min=1)
        l1 = ((shift[:, :, order] - target).abs().mean((1, 3)) * weight).sum(1) / weight.sum(1)
        costs.append(ce + l1 / SHIFT_PX)
    return torch.stack(costs, 1).amin(1).mean()
