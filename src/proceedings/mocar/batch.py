"""Scenes as model inputs: segment boundaries, focal segments, and each token's context (spec §2.3).

Token i of the focal agent carries segment i and sits at the frame its segment *ends* in, F_{i+1}:
from there it predicts segment i+1. Its context is the map chunks and the neighbours' poses at the
token's time (observed for history tokens; constant-velocity extrapolation from the current state for
future tokens, where their states are unknown), all expressed relative to the token's frame so that
the model is SE(2)-invariant by construction.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.mocar.frames import SEGMENT, boundaries, segment_poses, segments
from proceedings.mocar.scenarios import Scenes

STEP_S = 0.1


def segment_counts(observed: int, future: int, length: int = SEGMENT) -> tuple[int, int]:
    """(history segments ending at the current state, future segments): 9 + 12 (AV2), 3 + 6 (AV1)."""
    if future % length:
        raise ProceedingsError(f"horizon of {future} steps is not a multiple of the {length}-step segment")
    if observed - 1 < length:
        raise ProceedingsError(f"history of {observed} steps is shorter than one {length}-step segment")
    return (observed - 1) // length, future // length


@dataclass
class Batch:
    """Tensors of B scenes (float32 unless said)."""

    xy: torch.Tensor  # (B, L, 2) observed focal positions (noisy), whole window
    heading: torch.Tensor  # (B, L)
    clean_future: torch.Tensor  # (B, F*S, 2) exact future positions
    neighbour_pose: torch.Tensor  # (B, N, H+F, 3) at every token's time
    neighbour_speed: torch.Tensor  # (B, N, H+F)
    neighbour_valid: torch.Tensor  # (B, N, H+F) bool
    map_pose: torch.Tensor  # (B, M, 3) chunk midpoint and direction
    map_length: torch.Tensor  # (B, M)
    map_intersection: torch.Tensor  # (B, M)
    map_valid: torch.Tensor  # (B, M) bool
    history: int  # H
    future: int  # F
    times: list[int]  # H+F+1 boundary steps

    @property
    def current(self) -> int:
        return self.times[self.history]

    def segments(self):
        """(points (B, H+F, S, 2), headings (B, H+F, S), transitions (B, H+F, 3)) of the observed track."""
        return segments(self.xy, self.heading, self.times)

    def frames(self) -> torch.Tensor:
        """Ground-truth frames at the boundaries (B, H+F+1, 3)."""
        return segment_poses(self.xy, self.heading, self.times)

    def future_xy(self) -> torch.Tensor:
        return self.xy[:, self.current + 1:self.current + 1 + self.future * SEGMENT]

    def to(self, device: torch.device | str) -> "Batch":
        """The same scenes with every tensor on `device`."""
        return replace(self, **{f.name: getattr(self, f.name).to(device) for f in fields(self)
                                if isinstance(getattr(self, f.name), torch.Tensor)})

    def transformed(self, angle: float, shift: tuple[float, float]) -> "Batch":
        """The same scenes rotated by `angle` and translated by `shift` (for the invariance test)."""
        c, s = np.cos(angle), np.sin(angle)
        rot = torch.tensor([[c, -s], [s, c]], dtype=self.xy.dtype)
        t = torch.tensor(shift, dtype=self.xy.dtype)
        move = lambda p: p @ rot.T + t  # noqa: E731
        pose = lambda q: torch.cat((move(q[..., :2]), q[..., 2:] + angle), dim=-1)  # noqa: E731
        return Batch(move(self.xy), self.heading + angle, move(self.clean_future), pose(self.neighbour_pose),
                     self.neighbour_speed, self.neighbour_valid, pose(self.map_pose), self.map_length,
                     self.map_intersection, self.map_valid, self.history, self.future, self.times)


def make_batch(scenes: Scenes, index: np.ndarray, future_steps: int | None = None) -> Batch:
    """Model inputs for scenes[index]; `future_steps` shortens the horizon (AV1 evaluation)."""
    obs = scenes.observed
    total_future = scenes.focal.shape[1] - obs
    future_steps = total_future if future_steps is None else future_steps
    H, F = segment_counts(obs, future_steps)
    times = boundaries(obs - 1, H, F)
    focal = torch.from_numpy(scenes.focal[index, :obs + future_steps])
    clean = torch.from_numpy(scenes.focal_clean[index, obs:obs + future_steps])
    nb = scenes.neighbours[index]  # (B, N, obs, 4)
    nb_valid = scenes.neighbour_valid[index]
    token_times = times[1:]  # token i sits at the end of segment i
    pose = np.zeros((*nb.shape[:2], len(token_times), 3), np.float32)
    valid = np.zeros((*nb.shape[:2], len(token_times)), bool)
    now = nb[:, :, obs - 1]
    for j, t in enumerate(token_times):
        if t <= obs - 1:
            pose[:, :, j], valid[:, :, j] = nb[:, :, t, :3], nb_valid[:, :, t]
        else:  # constant velocity from the current state
            dt = (t - (obs - 1)) * STEP_S
            pose[:, :, j, 0] = now[..., 0] + np.cos(now[..., 2]) * now[..., 3] * dt
            pose[:, :, j, 1] = now[..., 1] + np.sin(now[..., 2]) * now[..., 3] * dt
            pose[:, :, j, 2], valid[:, :, j] = now[..., 2], nb_valid[:, :, obs - 1]
    speed = np.repeat(now[..., 3:4], len(token_times), axis=-1)
    pts = scenes.map_points[index]  # (B, M, P, 2)
    mid = pts[:, :, pts.shape[2] // 2]
    direction = pts[:, :, -1] - pts[:, :, 0]
    map_pose = np.concatenate((mid, np.arctan2(direction[..., 1], direction[..., 0])[..., None]), axis=-1)
    return Batch(focal[..., :2].contiguous(), focal[..., 2].contiguous(), clean,
                 torch.from_numpy(pose), torch.from_numpy(speed), torch.from_numpy(valid),
                 torch.from_numpy(map_pose.astype(np.float32)),
                 torch.from_numpy(np.linalg.norm(direction, axis=-1).astype(np.float32)),
                 torch.from_numpy(scenes.map_intersection[index].astype(np.float32)),
                 torch.from_numpy(scenes.map_valid[index]), H, F, times)
