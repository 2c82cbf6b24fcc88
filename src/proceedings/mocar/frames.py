"""SE(2) frame algebra: local frames, endpoint-normalised segments and the transitions between frames.

MoCAR (abstract; spec §2.2) expresses every 0.5 s segment in the *local frame* F_i of the agent at the
segment's start, a pose (x, y, θ). The segment's endpoint pose in F_i, T_i = (dx, dy, dθ), is the frame
transition F_i -> F_{i+1}, so F_{i+1} = F_i ∘ T_i and composing decoded transitions moves the frame along
a rolled-out trajectory. Poses are tensors (..., 3); points (..., 2). Everything here is exact algebra:
the only approximation in the system is what the tokenizer or a model decodes.
"""

from __future__ import annotations

import math

import torch

SEGMENT = 5  # steps per segment at 10 Hz: 0.5 s (spec §2.2; S = 10 is an ablation)


def wrap(angle: torch.Tensor) -> torch.Tensor:
    """Angles into (-π, π]."""
    return torch.atan2(torch.sin(angle), torch.cos(angle))


def to_local(points: torch.Tensor, pose: torch.Tensor) -> torch.Tensor:
    """Global points (..., n, 2) expressed in the frame `pose` (..., 3)."""
    c, s = torch.cos(pose[..., 2:3]), torch.sin(pose[..., 2:3])
    d = points - pose[..., None, :2]
    return torch.stack((c * d[..., 0] + s * d[..., 1], -s * d[..., 0] + c * d[..., 1]), dim=-1)


def to_global(points: torch.Tensor, pose: torch.Tensor) -> torch.Tensor:
    """Points (..., n, 2) given in the frame `pose` (..., 3) back in the global frame."""
    c, s = torch.cos(pose[..., 2:3]), torch.sin(pose[..., 2:3])
    x, y = points[..., 0], points[..., 1]
    return torch.stack((c * x - s * y, s * x + c * y), dim=-1) + pose[..., None, :2]


def compose(pose: torch.Tensor, transition: torch.Tensor) -> torch.Tensor:
    """F ∘ T: the pose reached by the transition (dx, dy, dθ) given in the frame `pose`."""
    end = to_global(transition[..., None, :2], pose)[..., 0, :]
    return torch.cat((end, wrap(pose[..., 2:] + transition[..., 2:])), dim=-1)


def relative(frame: torch.Tensor, pose: torch.Tensor) -> torch.Tensor:
    """`pose` (..., 3) expressed in `frame` (..., 3): (x, y, θ) of the pose as seen from the frame."""
    xy = to_local(pose[..., None, :2], frame)[..., 0, :]
    return torch.cat((xy, wrap(pose[..., 2:] - frame[..., 2:])), dim=-1)


def boundaries(current: int, before: int, after: int, length: int = SEGMENT) -> list[int]:
    """Time indices of segment boundaries: `before` segments ending at `current`, `after` following it."""
    return [current + length * k for k in range(-before, after + 1)]


def segment_poses(xy: torch.Tensor, heading: torch.Tensor, times: list[int]) -> torch.Tensor:
    """The frames F at the boundary times: (..., len(times), 3)."""
    return torch.cat((xy[..., times, :], heading[..., times, None]), dim=-1)


def segments(xy: torch.Tensor, heading: torch.Tensor, times: list[int]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Cut a track into endpoint-normalised segments between consecutive boundary times.

    Returns (points, headings, transitions): points (..., n, S, 2) and relative headings (..., n, S) of
    each segment's S steps in its start frame F_i, and T_i (..., n, 3), the end pose in F_i.
    """
    frames = segment_poses(xy, heading, times)  # (..., n+1, 3)
    length = times[1] - times[0]
    steps = torch.stack([torch.arange(t + 1, t + length + 1, device=xy.device) for t in times[:-1]])  # (n, S)
    pts = xy[..., steps, :]  # (..., n, S, 2)
    local = to_local(pts, frames[..., :-1, :])
    rel_heading = wrap(heading[..., steps] - frames[..., :-1, None, 2])
    return local, rel_heading, relative(frames[..., :-1, :], frames[..., 1:, :])


def rollout_frames(start: torch.Tensor, transitions: torch.Tensor) -> torch.Tensor:
    """Compose transitions (..., n, 3) from `start` (..., 3): the frames F_1..F_n (..., n, 3)."""
    frames, pose = [], start
    for i in range(transitions.shape[-2]):
        pose = compose(pose, transitions[..., i, :])
        frames.append(pose)
    return torch.stack(frames, dim=-2)


def place(local_points: torch.Tensor, start: torch.Tensor, transitions: torch.Tensor) -> torch.Tensor:
    """Segments decoded in their own frames (..., n, S, 2) laid end to end from `start` along `transitions`:
    the global trajectory (..., n*S, 2)."""
    frames = torch.cat((start[..., None, :], rollout_frames(start, transitions)[..., :-1, :]), dim=-2)
    pts = to_global(local_points, frames)
    return pts.reshape(*pts.shape[:-3], -1, 2)


def heading_change(heading: torch.Tensor) -> torch.Tensor:
    """Absolute net heading change between the first and last entries of (..., T), in radians."""
    return wrap(heading[..., -1] - heading[..., 0]).abs()


TURN_HEAVY = math.radians(45.0)  # |Δheading| over the future above this marks a turn-heavy window (issue 25)
