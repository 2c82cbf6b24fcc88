"""Scenario windows from SUMO traffic, stored as shards; the loader that validates them (spec §4.1).

A window is one focal vehicle over the Argoverse protocol's span at 10 Hz: AV2 = 5 s observed + 6 s
future (50 + 60 steps), AV1 = 2 s + 3 s (20 + 30). Focal vehicles are fully observed over the window,
travel >= 5 m and never brake or accelerate harder than 8 m/s^2 (SUMO's emergency stops, spec §9).
Context: the `NEIGHBOURS` nearest vehicles present at the current step within 50 m (their observed
states; `scored` when also present through the future within 30 m) and the `MAP_TOKENS` nearest map
chunks. Observed positions carry 0.1 m Gaussian noise; the clean future is kept as exact ground
truth. A window is turn-heavy when its future heading changes by more than 45 degrees.
One `.npz` shard per network, written to a temporary name and renamed (never half-written).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.core.runtime import atomic_write_bytes

NOISE_M = 0.1
NEIGHBOURS, NEIGHBOUR_RADIUS_M, SCORED_RADIUS_M = 6, 50.0, 30.0
MAP_TOKENS, MAP_RADIUS_M = 48, 50.0
MIN_TRAVEL_M, MAX_ACCEL = 5.0, 8.0
TURN_HEAVY_RAD = np.radians(45.0)


@dataclass(frozen=True)
class Protocol:
    name: str
    observed: int  # steps, the last one is the current state
    future: int

    @property
    def length(self) -> int:
        return self.observed + self.future


PROTOCOLS = {"av2": Protocol("av2", 50, 60), "av1": Protocol("av1", 20, 30)}


def protocol(name: str) -> Protocol:
    if name not in PROTOCOLS:
        raise ProceedingsError(f"unknown protocol '{name}'; use av2 (5 s + 6 s) or av1 (2 s + 3 s)")
    return PROTOCOLS[name]


def dense_states(tracks: dict[str, np.ndarray], n_steps: int) -> tuple[list[str], np.ndarray]:
    """Vehicle ids and a (V, n_steps, 4) float32 array [x, y, heading, speed], NaN where absent."""
    ids = sorted(tracks)
    states = np.full((len(ids), n_steps, 4), np.nan, dtype=np.float32)
    for v, vid in enumerate(ids):
        rows = tracks[vid]
        steps = rows[:, 0].astype(int)
        keep = steps < n_steps
        states[v, steps[keep]] = rows[keep, 1:]
    return ids, states


def cut_windows(states: np.ndarray, proto: Protocol, stride: int, warmup: int) -> list[tuple[int, int]]:
    """(vehicle, start step) of every admissible focal window, starts on a common stride grid."""
    present = ~np.isnan(states[..., 0])
    out = []
    for v in range(len(states)):
        for start in range(warmup, states.shape[1] - proto.length + 1, stride):
            span = slice(start, start + proto.length)
            if not present[v, span].all():
                continue
            xy, speed = states[v, span, :2], states[v, span, 3]
            if np.linalg.norm(np.diff(xy, axis=0), axis=1).sum() < MIN_TRAVEL_M:
                continue
            if np.abs(np.diff(speed)).max() / 0.1 > MAX_ACCEL:
                continue
            out.append((v, start))
    return out


def turn_heavy(heading: np.ndarray, proto: Protocol) -> np.ndarray:
    """|Δheading| between the current state and the horizon's end > 45 degrees; heading (W, T)."""
    d = heading[:, -1] - heading[:, proto.observed - 1]
    return np.abs(np.arctan2(np.sin(d), np.cos(d))) > TURN_HEAVY_RAD


def build_shard(states: np.ndarray, ids: list[str], windows: list[tuple[int, int]], proto: Protocol,
                chunk_points: np.ndarray, chunk_flags: np.ndarray, lane_points: np.ndarray, seed: int,
                noise_m: float = NOISE_M) -> dict:
    """Every window's focal track, neighbours and map-token indices as arrays (one network); observed
    positions get `noise_m` Gaussian noise (0 for real data)."""
    from scipy.spatial import cKDTree

    rng = np.random.default_rng(seed)
    w, L, obs = len(windows), proto.length, proto.observed
    focal = np.zeros((w, L, 4), np.float32)
    neighbours = np.zeros((w, NEIGHBOURS, obs, 4), np.float32)
    valid = np.zeros((w, NEIGHBOURS, obs), bool)
    scored = np.zeros((w, NEIGHBOURS), bool)
    mids = chunk_points[:, chunk_points.shape[1] // 2]
    tree = cKDTree(mids)
    map_index = np.full((w, MAP_TOKENS), -1, np.int32)
    for k, (v, start) in enumerate(windows):
        now = start + obs - 1
        focal[k] = states[v, start:start + L]
        here = states[:, now, :2]
        dist = np.linalg.norm(here - here[v], axis=1)
        dist[v] = np.inf
        dist[np.isnan(dist)] = np.inf
        near = [n for n in np.argsort(dist)[:NEIGHBOURS] if dist[n] <= NEIGHBOUR_RADIUS_M]
        for j, n in enumerate(near):
            block = states[n, start:start + obs]
            ok = ~np.isnan(block[:, 0])
            neighbours[k, j][ok], valid[k, j] = block[ok], ok
            future = states[n, now:start + L, :2]
            scored[k, j] = (not np.isnan(future).any()) and dist[n] <= SCORED_RADIUS_M
        d, idx = tree.query(here[v], k=min(MAP_TOKENS, len(mids)), distance_upper_bound=MAP_RADIUS_M)
        idx = np.atleast_1d(idx)[np.isfinite(np.atleast_1d(d))]
        map_index[k, :len(idx)] = idx
    clean = focal[..., :2].copy()
    focal[..., :2] += rng.normal(0.0, noise_m, focal[..., :2].shape).astype(np.float32)
    neighbours[..., :2] += np.where(valid[..., None], rng.normal(0.0, noise_m, neighbours[..., :2].shape), 0).astype(np.float32)
    return {"focal": focal, "focal_clean": clean, "neighbours": neighbours, "neighbour_valid": valid,
            "scored": scored, "map_index": map_index, "chunks": chunk_points, "chunk_intersection": chunk_flags,
            "lane_points": lane_points, "turn_heavy": turn_heavy(focal[..., 2], proto),
            "start_step": np.asarray([s for _, s in windows], np.int32),
            "track_id": np.asarray([ids[v] for v, _ in windows]), "observed": np.int32(obs)}


def write_shard(path: Path, arrays: dict) -> Path:
    """np.savez_compressed to a temporary file, then an atomic rename."""
    import io

    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    return atomic_write_bytes(path, buffer.getvalue())


@dataclass
class Scenes:
    """Windows of one or more shards, concatenated; map chunks and lane points stay per network."""

    focal: np.ndarray  # (W, L, 4) observed (noisy) x, y, heading, speed
    focal_clean: np.ndarray  # (W, L, 2) exact positions
    neighbours: np.ndarray  # (W, N, obs, 4)
    neighbour_valid: np.ndarray  # (W, N, obs)
    scored: np.ndarray  # (W, N)
    map_points: np.ndarray  # (W, M, P, 2), zero where absent
    map_intersection: np.ndarray  # (W, M)
    map_valid: np.ndarray  # (W, M)
    turn_heavy: np.ndarray  # (W,)
    network: np.ndarray  # (W,) index into lane_points
    scenario_id: list[str]
    observed: int
    lane_points: list[np.ndarray] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.focal)

    def subset(self, keep: np.ndarray) -> "Scenes":
        keep = np.asarray(keep)
        idx = np.flatnonzero(keep) if keep.dtype == bool else keep
        arrays = {name: getattr(self, name)[idx] for name in
                  ("focal", "focal_clean", "neighbours", "neighbour_valid", "scored", "map_points",
                   "map_intersection", "map_valid", "turn_heavy", "network")}
        return Scenes(**arrays, scenario_id=[self.scenario_id[i] for i in idx], observed=self.observed,
                      lane_points=self.lane_points)

    def lanes_of(self) -> list[np.ndarray]:
        return [self.lane_points[n] for n in self.network]


def validate(arrays: dict, name: str, skip_invalid: bool) -> np.ndarray:
    """Rows that pass: focal observed states finite; raises naming the first bad scenario otherwise."""
    obs = int(arrays["observed"])
    bad = ~np.isfinite(arrays["focal"][:, :obs]).all(axis=(1, 2)) | ~np.isfinite(arrays["focal_clean"]).all(axis=(1, 2))
    if bad.any() and not skip_invalid:
        first = int(np.flatnonzero(bad)[0])
        raise ProceedingsError(f"scenario {name}:{arrays['track_id'][first]}@{arrays['start_step'][first]} has NaN "
                               f"in its focal track; pass --skip-invalid to drop such scenarios ({int(bad.sum())} here)")
    return ~bad


def load(path: Path | str, skip_invalid: bool = False) -> tuple[Scenes, dict]:
    """Read a shard directory (manifest.json + .npz) or one .npz; returns the scenes and a load report."""
    path = Path(path)
    if path.is_dir():
        manifest_path = path / "manifest.json"
        if not manifest_path.exists():
            raise ProceedingsError(f"'{path}' has no manifest.json; run `proceedings mocar sim -o {path}` first")
        files = [path / n["file"] for n in json.loads(manifest_path.read_text())["networks"]]
    elif path.suffix == ".npz" and path.exists():
        files = [path]
    else:
        raise ProceedingsError(f"'{path}' is neither a scenario directory nor an .npz shard")
    parts, skipped, lanes = [], 0, []
    for n, file in enumerate(files):
        if not file.exists():
            raise ProceedingsError(f"shard '{file}' listed in the manifest is missing; re-run `mocar sim` to resume")
        with np.load(file) as z:
            arrays = {k: z[k] for k in z.files}
        keep = validate(arrays, file.stem, skip_invalid)
        skipped += int((~keep).sum())
        parts.append(scenes_from_arrays(arrays, keep, n, file.stem))
        lanes.append(arrays["lane_points"])
    if len({p.observed for p in parts}) > 1:
        raise ProceedingsError(f"'{path}' mixes protocols (observed steps {sorted({p.observed for p in parts})})")
    scenes = concat(parts)
    scenes.lane_points = lanes
    return scenes, {"files": len(files), "scenarios": len(scenes), "skipped_invalid": skipped}


def scenes_from_arrays(arrays: dict, keep: np.ndarray, network: int, name: str) -> Scenes:
    idx = arrays["map_index"][keep]
    chunks = np.concatenate((arrays["chunks"], np.zeros((1, *arrays["chunks"].shape[1:]), np.float32)))
    flags = np.append(arrays["chunk_intersection"], False)
    return Scenes(focal=arrays["focal"][keep], focal_clean=arrays["focal_clean"][keep],
                  neighbours=arrays["neighbours"][keep], neighbour_valid=arrays["neighbour_valid"][keep],
                  scored=arrays["scored"][keep], map_points=chunks[idx], map_intersection=flags[idx],
                  map_valid=idx >= 0, turn_heavy=arrays["turn_heavy"][keep],
                  network=np.full(int(keep.sum()), network, np.int32),
                  scenario_id=[f"{name}:{t}@{s}" for t, s in zip(arrays["track_id"][keep], arrays["start_step"][keep])],
                  observed=int(arrays["observed"]))


def concat(parts: list[Scenes]) -> Scenes:
    names = ("focal", "focal_clean", "neighbours", "neighbour_valid", "scored", "map_points", "map_intersection",
             "map_valid", "turn_heavy", "network")
    arrays = {n: np.concatenate([getattr(p, n) for p in parts]) for n in names}
    return Scenes(**arrays, scenario_id=[s for p in parts for s in p.scenario_id], observed=parts[0].observed,
                  lane_points=[lp for p in parts for lp in p.lane_points])
