"""Condition videos (spec §2.1): the point video with its point-valid channel, its test-time masks,
and the ego depth-warping video.

Point video: agent k is a filled disk in its instance colour, centred on its projected box centre,
radius r0 * d0 / d_t (it grows as the agent nears). Agents outside the view are dropped. Disks are
anti-aliased (coverage = clip(r + 0.5 - distance, 0, 1)) and painted far to near.
Ego warp: the static depth of frame 0 (agents zeroed) forward-splatted into every frame's camera,
nearest pixel, nearest depth wins, holes = 0. It carries ego motion only and is never masked.
"""

from __future__ import annotations

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.motionforcing.camera import FAR, Intrinsics, project, relative_pose

INSTANCE_COLOURS = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 0.0], [1.0, 0.0, 1.0],
                             [0.0, 1.0, 1.0], [1.0, 0.5, 0.0], [0.5, 0.0, 1.0]])
MASK_MODES = ("full", "drop", "span", "future", "keyframes")


def point_video(centres: np.ndarray, depths: np.ndarray, radii0: np.ndarray, given: np.ndarray, size: int,
                colours: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Disks of the given points. centres (A, T, 2), depths (A, T), radii0 (A,), given (A, T) bool.

    Returns the point video (T, 3, H, W) and the point-valid channel (T,): 1 where no agent's point
    is masked in that frame, so the model can tell "no object" from "masked".
    """
    A, T = given.shape
    colours = INSTANCE_COLOURS[np.arange(A) % len(INSTANCE_COLOURS)] if colours is None else colours
    video = np.zeros((T, 3, size, size), np.float32)
    grid = np.arange(size) + 0.5
    for t in range(T):
        for k in np.argsort(-depths[:, t], kind="stable"):  # far to near: the nearer disk ends on top
            u, v = centres[k, t]
            if not given[k, t] or depths[k, t] <= 0 or not (0 <= u < size and 0 <= v < size):
                continue
            radius = radii0[k] * depths[k, 0] / depths[k, t]
            distance = np.hypot(grid[None, :] - u, grid[:, None] - v)
            alpha = np.clip(radius + 0.5 - distance, 0, 1).astype(np.float32)
            video[t] = video[t] * (1 - alpha) + alpha * colours[k][:, None, None]
    return video, given.all(0).astype(np.float32)


def mask(mode: str, agents: int, frames: int, rng: np.random.Generator | None = None) -> np.ndarray:
    """Which points are given (A, T) under a named mask: 'full', 'drop[:k]', 'span[:k:start:stop]',
    'future[:cut]' (every point from frame `cut` on is zeroed: causal mode), 'keyframes' (first,
    middle and last frame only). Missing parameters are drawn from `rng`."""
    name, *args = mode.split(":")
    if name not in MASK_MODES:
        raise ProceedingsError(f"unknown mask mode '{mode}'; choose one of: {', '.join(MASK_MODES)}")
    rng = rng or np.random.default_rng(0)
    given = np.ones((agents, frames), bool)
    try:
        values = [int(a) for a in args]
    except ValueError:
        raise ProceedingsError(f"mask '{mode}': parameters must be integers") from None
    if name == "drop":
        given[values[0] if values else rng.integers(agents)] = False
    elif name == "span":
        k, start, stop = values if len(values) == 3 else (rng.integers(agents), *random_span(frames, rng))
        given[k, start:stop] = False
    elif name == "future":
        given[:, values[0] if values else rng.integers(frames // 4, 3 * frames // 4 + 1):] = False
    elif name == "keyframes":
        given[:, [t for t in range(frames) if t not in (0, frames // 2, frames - 1)]] = False
    return given


def random_span(frames: int, rng: np.random.Generator) -> tuple[int, int]:
    """A contiguous span covering 25-75 % of the frames (spec §2.3)."""
    length = int(rng.integers(max(1, round(0.25 * frames)), round(0.75 * frames) + 1))
    start = int(rng.integers(0, frames - length + 1))
    return start, start + length


def ego_warp(depth0: np.ndarray, static0: np.ndarray, K: Intrinsics, cams: np.ndarray) -> np.ndarray:
    """Forward splat of frame 0's static depth into every frame's camera. (T, H, W), holes = 0."""
    H, W = depth0.shape
    if depth0.shape != (K.size, K.size) or static0.shape != depth0.shape:
        raise ProceedingsError(f"depth of shape {depth0.shape} does not match the {K.size}x{K.size} image")
    rows, cols = np.nonzero(static0 & (depth0 > 0) & (depth0 < FAR))  # sky is at infinity: not splatted
    z = depth0[rows, cols].astype(np.float64)
    points = np.stack([(cols + 0.5 - K.cx) / K.f * z, -(rows + 0.5 - K.cy) / K.f * z, z], -1)  # camera 0
    out = np.zeros((len(cams), H, W), np.float32)
    for t, pose in enumerate(cams):
        R, shift = relative_pose(cams[0], pose)
        uv, zt = project(points @ R.T + shift, K)
        c, r = np.floor(uv[:, 0]).astype(int), np.floor(uv[:, 1]).astype(int)
        keep = (zt > 0.1) & (c >= 0) & (c < W) & (r >= 0) & (r < H)
        order = np.argsort(-zt[keep], kind="stable")  # far first, so the nearest point is written last
        out[t, r[keep][order], c[keep][order]] = zt[keep][order]
    return out
