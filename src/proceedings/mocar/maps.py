"""Map export from a SUMO network (spec §4.1 step 4): lane segments in the Argoverse 2 spirit.

Every normal and internal (junction) lane becomes a lane segment with its centreline, left and right
boundaries (offset by half the lane width), successors (SUMO connections), left/right neighbours
(adjacent lane index on the same edge) and `is_intersection` (internal lanes). The model sees the
map as *chunks*: centrelines resampled every `CHUNK_STEP_M` and cut into pieces of `CHUNK_POINTS`
points, each a map token with a pose (its midpoint, its direction) and an intersection flag.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

CHUNK_POINTS = 5
CHUNK_STEP_M = 2.0  # chunks of 8 m
LANE_POINT_STEP_M = 1.0  # dense centreline points for the off-road metric


def resample(line: np.ndarray, step: float) -> np.ndarray:
    """A polyline (n, 2) resampled every `step` metres along its length (end point kept)."""
    seg = np.linalg.norm(np.diff(line, axis=0), axis=1)
    s = np.concatenate(([0.0], np.cumsum(seg)))
    if s[-1] <= 0:
        return line[:1].copy()
    at = np.append(np.arange(0.0, s[-1], step), s[-1])
    return np.stack((np.interp(at, s, line[:, 0]), np.interp(at, s, line[:, 1])), axis=1)


def _offset(line: np.ndarray, distance: float) -> np.ndarray:
    """The polyline shifted sideways by `distance` (positive = left of travel)."""
    d = np.gradient(line, axis=0) if len(line) > 1 else np.array([[1.0, 0.0]])
    d = d / np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-9)
    return line + distance * np.stack((-d[:, 1], d[:, 0]), axis=1)


def export_lanes(net_path: Path) -> list[dict]:
    """All lane segments of a SUMO network as AV2-style records (JSON-serialisable)."""
    import sumolib

    net = sumolib.net.readNet(str(net_path), withInternal=True)
    lanes = []
    for edge in net.getEdges(withInternal=True):
        internal = edge.getFunction() == "internal"
        edge_lanes = edge.getLanes()
        for lane in edge_lanes:
            centre = np.asarray(lane.getShape(), dtype=np.float64)
            # a connection through a junction leads first onto its internal ("via") lane
            successors = sorted({c.getViaLaneID() or c.getToLane().getID() for c in lane.getOutgoing()})
            width, index = lane.getWidth(), lane.getIndex()
            lanes.append({
                "id": lane.getID(), "is_intersection": internal, "width": width,
                "centerline": centre.round(3).tolist(),
                "left_boundary": _offset(centre, width / 2).round(3).tolist(),
                "right_boundary": _offset(centre, -width / 2).round(3).tolist(),
                "successors": successors,
                "left_neighbor": edge_lanes[index + 1].getID() if index + 1 < len(edge_lanes) else None,
                "right_neighbor": edge_lanes[index - 1].getID() if index > 0 else None,
                "speed_limit": lane.getSpeed(),
            })
    return lanes


def chunks(lanes: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    """Map tokens: (C, CHUNK_POINTS, 2) centreline pieces and (C,) intersection flags."""
    pieces, flags = [], []
    for lane in lanes:
        pts = resample(np.asarray(lane["centerline"]), CHUNK_STEP_M)
        if len(pts) < 2:
            continue
        for start in range(0, len(pts) - 1, CHUNK_POINTS - 1):
            piece = pts[start:start + CHUNK_POINTS]
            if len(piece) < CHUNK_POINTS:  # pad the last piece by repeating its end point
                piece = np.concatenate((piece, np.repeat(piece[-1:], CHUNK_POINTS - len(piece), axis=0)))
            pieces.append(piece)
            flags.append(lane["is_intersection"])
    return np.asarray(pieces, dtype=np.float32), np.asarray(flags, dtype=bool)


def lane_points(lanes: list[dict]) -> np.ndarray:
    """Dense centreline points (P, 2) of every lane, for the off-road metric."""
    return np.concatenate([resample(np.asarray(lane["centerline"]), LANE_POINT_STEP_M) for lane in lanes]).astype(np.float32)
