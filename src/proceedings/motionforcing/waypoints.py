"""User controls -> per-frame points (spec §2.1 step 3, §6): `from_waypoints` and the traj.json format.

An object's pixel waypoints (in I0) are unprojected to the horizontal plane through the object's
centre (its depth from depth0 over its mask, or given), smoothed by a cubic spline (scipy) spread
evenly over the frames, moved in world coordinates and reprojected through each frame's ego camera.
The ego path (metres on a top-down canvas, from the start pose) becomes per-frame poses: a cubic
spline through the waypoints, arc length split by the speed weights, yaw along the tangent.
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.interpolate import CubicSpline

from proceedings.core.errors import ProceedingsError
from proceedings.motionforcing.camera import CAMERA_HEIGHT, Intrinsics, project, world_to_camera

log = logging.getLogger(__name__)


@dataclass
class Trajectories:
    centres: np.ndarray  # (A, T, 2) pixels per frame
    depths: np.ndarray  # (A, T) z-depth per frame
    radii0: np.ndarray  # (A,) disk radius at frame 0
    cams: np.ndarray  # (T, 3) ego poses
    ids: list[int]  # mask id of each row


def ego_poses(frames: int, waypoints: list | None = None, speed_weights: list | None = None) -> np.ndarray:
    """Per-frame (x, z, yaw) along an ego path through the origin and `waypoints` ([dx, dz] metres)."""
    if not waypoints:
        return np.zeros((frames, 3))
    path = np.vstack([[0.0, 0.0], np.asarray(waypoints, float)])
    seg = np.linalg.norm(np.diff(path, axis=0), axis=1)
    if (seg <= 0).any():
        raise ProceedingsError("traj.json: ego waypoints must not repeat a point (or the start [0, 0])")
    s = np.concatenate([[0.0], np.cumsum(seg)])
    spline = CubicSpline(s, path, bc_type="natural") if len(path) > 2 else None
    weights = np.ones(frames - 1) if not speed_weights else np.interp(
        np.linspace(0, len(speed_weights) - 1, frames - 1), np.arange(len(speed_weights)), np.asarray(speed_weights, float))
    if (weights < 0).any() or weights.sum() <= 0:
        raise ProceedingsError("traj.json: ego speed_weights must be >= 0 and not all 0")
    arc = np.concatenate([[0.0], np.cumsum(weights)]) / weights.sum() * s[-1]
    if spline is None:
        xy, tangent = path[0] + np.outer(arc / s[-1], path[1] - path[0]), np.repeat([path[1] - path[0]], frames, 0)
    else:
        xy, tangent = spline(arc), spline(arc, 1)
    return np.stack([xy[:, 0], xy[:, 1], np.arctan2(tangent[:, 0], tangent[:, 1])], -1)


def _plane_point(pixel: np.ndarray, height: float, K: Intrinsics) -> np.ndarray:
    """Where the camera-0 ray through `pixel` meets the plane y = height (world = camera 0 at the origin)."""
    ray = np.array([(pixel[0] - K.cx) / K.f, -(pixel[1] - K.cy) / K.f, 1.0])
    if abs(ray[1]) < 1e-9 or (height - CAMERA_HEIGHT) / ray[1] <= 0:
        raise ProceedingsError(f"waypoint {pixel.tolist()} does not meet the object's plane in front of the camera")
    t = (height - CAMERA_HEIGHT) / ray[1]
    return np.array([ray[0] * t, height, t])


def from_waypoints(masks: dict[int, np.ndarray], waypoints: dict[int, list], depth0: np.ndarray, K: Intrinsics,
                   frames: int, cams: np.ndarray | None = None, depths: dict[int, float] | None = None) -> Trajectories:
    """Per-frame points of every object with waypoints. masks: id -> (H, W) bool; waypoints: id -> [[x, y], ...]
    pixels in I0; depths: id -> the object centre's depth in I0 (default: the median of depth0 over its mask)."""
    check_depth(depth0, K.size)
    cams = np.zeros((frames, 3)) if cams is None else cams
    rows = []
    for obj, points in waypoints.items():
        pts = np.asarray(points, float).reshape(-1, 2)
        depth = (depths or {}).get(obj, float(np.median(depth0[masks[obj]])) if masks[obj].any() else 0.0)
        if depth <= 0:
            raise ProceedingsError(f"object {obj}: no depth (empty mask)")
        ray = np.array([(pts[0, 0] - K.cx) / K.f, -(pts[0, 1] - K.cy) / K.f, 1.0])
        height = CAMERA_HEIGHT + ray[1] * depth
        world = np.stack([_plane_point(p, height, K) for p in pts])  # camera 0 = world at the origin
        if len(world) == 1:
            track = np.repeat(world, frames, 0)
        else:
            track = CubicSpline(np.linspace(0, frames - 1, len(world)), world)(np.arange(frames))
        uv, z = project(world_to_camera(track, cams), K)
        ys, xs = np.nonzero(masks[obj])
        radius = 0.5 * min(np.ptp(xs) + 1, np.ptp(ys) + 1) if len(xs) else 1.0
        if radius < 1:
            log.warning("object %s: disk radius %.2f px is below 1 px at this resolution", obj, radius)
        rows.append((uv, z, radius, obj))
    return Trajectories(np.array([r[0] for r in rows]).reshape(len(rows), frames, 2),
                        np.array([r[1] for r in rows]).reshape(len(rows), frames),
                        np.array([r[2] for r in rows]), cams, [r[3] for r in rows])


def check_depth(depth0: np.ndarray, size: int) -> None:
    if depth0.shape != (size, size):
        raise ProceedingsError(f"depth has shape {depth0.shape}, the image is {size}x{size}")
    if not np.isfinite(depth0).all() or np.ptp(depth0) == 0:
        raise ProceedingsError("depth is constant or not finite; give a real depth map of I0")


def load_masks(path: Path) -> dict[int, np.ndarray]:
    """masks.npz with `masks` (N, H, W) bool and `ids` (N,); empty masks are dropped (overlaps: `resolve_overlaps`)."""
    try:
        with np.load(path) as data:
            masks, ids = data["masks"].astype(bool), [int(i) for i in data["ids"]]
    except (OSError, KeyError, ValueError) as err:
        raise ProceedingsError(f"masks file '{path}' needs arrays 'masks' (N, H, W) and 'ids' (N,): {err}") from None
    return {i: m for i, m in zip(ids, masks) if m.any()}


def resolve_overlaps(masks: dict[int, np.ndarray], depth0: np.ndarray) -> dict[int, np.ndarray]:
    """Spec §7: overlapping masks are painted larger-depth first (median of depth0 over each mask), so the nearer
    object keeps a shared pixel; a warning says so. Masks left empty are dropped."""
    if not masks or (np.sum(list(masks.values()), axis=0) <= 1).all():
        return masks
    log.warning("masks overlap; painted far to near (median depth), the nearer object keeps each shared pixel")
    ids = list(masks)
    owner = np.full(depth0.shape, -1)  # index into ids; -1 = no object (an id may be 0)
    for k in sorted(range(len(ids)), key=lambda k: -float(np.median(depth0[masks[ids[k]]]))):
        owner[masks[ids[k]]] = k
    return {obj: owner == k for k, obj in enumerate(ids) if (owner == k).any()}


def parse_traj(text: str, masks: dict[int, np.ndarray], width: int, height: int, backend: str = "unet") -> dict:
    """Validate a traj.json: every error names the object and the index (spec §7)."""
    try:
        traj = json.loads(text)
    except json.JSONDecodeError as err:
        raise ProceedingsError(f"traj.json is not valid JSON: {err}") from None
    frames = traj.get("frames")
    if not isinstance(frames, int) or frames < 2:
        raise ProceedingsError("traj.json: 'frames' must be an integer >= 2")
    if backend == "cogvideox":
        from proceedings.motionforcing.cogvideox import check_frames

        check_frames(frames)
    for i, obj in enumerate(traj.get("objects", [])):
        mask_id = obj.get("mask_id")
        if mask_id not in masks:
            raise ProceedingsError(f"traj.json: objects[{i}] has mask_id {mask_id!r}, not in the masks "
                                   f"({sorted(masks)})")
        points = obj.get("waypoints") or []
        if not points:
            raise ProceedingsError(f"traj.json: objects[{i}] (mask_id {mask_id}) has no waypoints")
        for j, p in enumerate(points):
            if len(p) != 2 or not all(isinstance(v, (int, float)) and math.isfinite(v) for v in p):
                raise ProceedingsError(f"traj.json: objects[{i}] (mask_id {mask_id}) waypoint {j} is {p!r}, "
                                       "not two finite numbers")
            if not (-width <= p[0] <= 2 * width and -width <= p[1] <= height + width):
                raise ProceedingsError(f"traj.json: objects[{i}] (mask_id {mask_id}) waypoint {j} {p} lies more "
                                       f"than one image width outside the {width}x{height} image")
    return traj
