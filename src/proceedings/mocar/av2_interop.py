"""Argoverse 2 interop through PyPI `av2==0.3.6` (issue 25): SUMO windows exported as AV2 scenarios, real AV2
scenarios loaded as `Scenes`, and the official metrics to cross-check ours.

An AV2 scenario is a folder `<id>/` with `scenario_<id>.parquet` (tracks at 10 Hz, 50 observed + 60 future
steps, one focal track) and `log_map_archive_<id>.json` (lane segments with left/right boundaries). Our
windows export with the focal track's observed (noisy) states and its exact future, neighbours as unscored
tracks over the observed steps (their futures are not stored), and the lanes within `EXPORT_RADIUS_M`. Real
scenarios load into the same arrays the SUMO shards hold, with no noise added; a scenario whose timestamps
are not 10 Hz, whose focal track is missing or not present at every step, or whose focal states hold NaN
stops the load with its id, or is dropped and counted with `skip_invalid`.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.core.runtime import atomic_write_text
from proceedings.mocar.maps import chunks, lane_points
from proceedings.mocar.scenarios import MAP_RADIUS_M, Scenes, build_shard, concat, protocol, scenes_from_arrays

INSTALL = "pip install --no-deps av2==0.3.6 && pip install universal-pathlib pandas pyarrow (or `make setup`)"
STEP_NS = 100_000_000  # 10 Hz
EXPORT_RADIUS_M = 2 * MAP_RADIUS_M


def _av2():
    """The av2 modules used here, or a one-line error naming the install."""
    try:
        from av2.datasets.motion_forecasting import data_schema, scenario_serialization
        from av2.datasets.motion_forecasting.eval import metrics
        from av2.map.map_api import ArgoverseStaticMap
    except ImportError as err:
        raise ProceedingsError(f"the Argoverse 2 API is not installed ({err.name}): {INSTALL}") from None
    return data_schema, scenario_serialization, metrics, ArgoverseStaticMap


def safe_id(scenario_id: str) -> str:
    return scenario_id.replace(":", "-").replace("@", "-")


def _states(schema, xy: np.ndarray, heading: np.ndarray, speed: np.ndarray, observed: int, steps) -> list:
    return [schema.ObjectState(observed=bool(t < observed), timestep=int(t), position=(float(xy[i, 0]), float(xy[i, 1])),
                               heading=float(heading[i]),
                               velocity=(float(speed[i] * np.cos(heading[i])), float(speed[i] * np.sin(heading[i]))))
            for i, t in enumerate(steps)]


def to_av2_scenario(scenes: Scenes, i: int, city: str = "sumo"):
    """Window i as an `ArgoverseScenario`: observed focal states as observed, the exact future after them."""
    schema = _av2()[0]
    obs, focal = scenes.observed, scenes.focal[i]
    xy = np.concatenate((focal[:obs, :2], scenes.focal_clean[i, obs:]))
    tracks = [schema.Track("focal", _states(schema, xy, focal[:, 2], focal[:, 3], obs, range(len(focal))),
                           schema.ObjectType.VEHICLE, schema.TrackCategory.FOCAL_TRACK)]
    for j in range(scenes.neighbours.shape[1]):
        steps = np.flatnonzero(scenes.neighbour_valid[i, j])
        if len(steps):
            nb = scenes.neighbours[i, j, steps]
            tracks.append(schema.Track(f"n{j}", _states(schema, nb[:, :2], nb[:, 2], nb[:, 3], obs, steps),
                                       schema.ObjectType.VEHICLE, schema.TrackCategory.UNSCORED_TRACK))
    return schema.ArgoverseScenario(safe_id(scenes.scenario_id[i]), np.arange(len(focal), dtype=np.int64) * STEP_NS,
                                    tracks, "focal", city, None, None)


def av2_map(lanes: list[dict], centre: np.ndarray) -> dict:
    """Lane dicts (maps.export_lanes) near `centre` as an AV2 `log_map_archive` JSON object (integer lane ids)."""
    near = [lane for lane in lanes if np.linalg.norm(np.asarray(lane["centerline"]) - centre, axis=1).min() <= EXPORT_RADIUS_M]
    ids = {lane["id"]: k for k, lane in enumerate(near)}
    predecessors: dict[str, list[int]] = {lane["id"]: [] for lane in near}
    for lane in near:
        for s in lane["successors"]:
            if s in predecessors:
                predecessors[s].append(ids[lane["id"]])
    points = lambda line: [{"x": x, "y": y, "z": 0.0} for x, y in line]  # noqa: E731
    segments = {str(ids[lane["id"]]): {
        "id": ids[lane["id"]], "is_intersection": bool(lane["is_intersection"]), "lane_type": "VEHICLE",
        "left_lane_boundary": points(lane["left_boundary"]), "right_lane_boundary": points(lane["right_boundary"]),
        "left_lane_mark_type": "NONE", "right_lane_mark_type": "NONE",
        "successors": [ids[s] for s in lane["successors"] if s in ids], "predecessors": predecessors[lane["id"]],
        "left_neighbor_id": ids.get(lane["left_neighbor"]), "right_neighbor_id": ids.get(lane["right_neighbor"])}
        for lane in near}
    return {"lane_segments": segments, "drivable_areas": {}, "pedestrian_crossings": {}}


def export_av2(scenes: Scenes, lanes: list[list[dict]], out_dir: Path, city: str = "sumo") -> list[Path]:
    """Write every window as an AV2 scenario folder; `lanes[n]` are network n's lane dicts."""
    serialization = _av2()[1]
    written = []
    for i in range(len(scenes)):
        scenario = to_av2_scenario(scenes, i, city)
        folder = Path(out_dir) / scenario.scenario_id
        folder.mkdir(parents=True, exist_ok=True)
        parquet = folder / f"scenario_{scenario.scenario_id}.parquet"
        partial = parquet.with_suffix(".parquet.tmp")
        serialization.serialize_argoverse_scenario_parquet(partial, scenario)
        partial.replace(parquet)  # never a half-written scenario
        centre = scenes.focal[i, scenes.observed - 1, :2]
        atomic_write_text(folder / f"log_map_archive_{scenario.scenario_id}.json",
                          json.dumps(av2_map(lanes[scenes.network[i]], centre)))
        written.append(parquet)
    return written


def _dense_tracks(scenario, length: int) -> tuple[list[str], np.ndarray]:
    """Track ids (focal first) and (V, length, 4) [x, y, heading, speed], NaN where a track is absent."""
    tracks = sorted(scenario.tracks, key=lambda t: t.track_id != scenario.focal_track_id)
    states = np.full((len(tracks), length, 4), np.nan, np.float32)
    for v, track in enumerate(tracks):
        for s in track.object_states:
            if 0 <= s.timestep < length:
                states[v, s.timestep] = (*s.position, s.heading, np.hypot(*s.velocity))
    return [t.track_id for t in tracks], states


def check_scenario(scenario, length: int) -> str | None:
    """Why a scenario cannot be used (None when it can)."""
    stamps = np.asarray(scenario.timestamps_ns, dtype=np.float64)
    if len(stamps) < length or np.abs(np.diff(stamps) - STEP_NS).max() > 1e3:
        return f"timestamps are not {length} steps at 10 Hz"
    if not any(t.track_id == scenario.focal_track_id for t in scenario.tracks):
        return f"focal track '{scenario.focal_track_id}' is missing"
    ids, states = _dense_tracks(scenario, length)
    if np.isnan(states[0]).any():
        return "the focal track is not observed at every step or holds NaN"
    return None


def load_av2(data_dir: Path | str, protocol_name: str = "av2", skip_invalid: bool = False) -> tuple[Scenes, dict]:
    """Real AV2 scenario folders under `data_dir` as `Scenes` (one map per scenario); returns a load report."""
    _, serialization, _, static_map = _av2()
    proto = protocol(protocol_name)
    folders = sorted(p.parent for p in Path(data_dir).glob("*/scenario_*.parquet"))
    if not folders:
        raise ProceedingsError(f"no AV2 scenario folders (<id>/scenario_<id>.parquet) under '{data_dir}'")
    parts, skipped = [], 0
    for folder in folders:
        scenario = serialization.load_argoverse_scenario_parquet(next(folder.glob("scenario_*.parquet")))
        problem = check_scenario(scenario, proto.length)
        if problem:
            if not skip_invalid:
                raise ProceedingsError(f"AV2 scenario {scenario.scenario_id}: {problem}; pass --skip-invalid to drop such scenarios")
            skipped += 1
            continue
        avm = static_map.from_json(next(folder.glob("log_map_archive_*.json")))
        lanes = [{"centerline": avm.get_lane_segment_centerline(k)[:, :2], "is_intersection": ls.is_intersection}
                 for k, ls in avm.vector_lane_segments.items()]
        ids, states = _dense_tracks(scenario, proto.length)
        chunk_points, chunk_flags = chunks(lanes)
        arrays = build_shard(states, ids, [(0, 0)], proto, chunk_points, chunk_flags, lane_points(lanes), 0, noise_m=0.0)
        part = scenes_from_arrays(arrays, np.ones(1, bool), len(parts), "av2")
        part.scenario_id, part.lane_points = [scenario.scenario_id], [arrays["lane_points"]]
        parts.append(part)
    if not parts:
        raise ProceedingsError(f"every AV2 scenario under '{data_dir}' is invalid ({skipped} skipped)")
    return concat(parts), {"scenarios": len(parts), "skipped_invalid": skipped}


def av2_metrics(forecasts: np.ndarray, probabilities: np.ndarray, truth: np.ndarray) -> dict:
    """minADE6, minFDE6, MR@2m and brier-minFDE6 computed with av2's own functions (best mode by FDE)."""
    metrics = _av2()[2]
    rows = []
    for k_traj, probs, gt in zip(forecasts, probabilities, truth):
        fde = metrics.compute_fde(k_traj, gt)
        best = int(np.argmin(fde))
        rows.append((metrics.compute_ade(k_traj, gt)[best], fde[best],
                     metrics.compute_is_missed_prediction(k_traj, gt)[best],
                     metrics.compute_brier_fde(k_traj, gt, probs)[best]))
    ade, fde, missed, brier = map(np.asarray, zip(*rows))
    return {"min_ade6": float(ade.mean()), "min_fde6": float(fde.mean()), "mr2": float(missed.mean()),
            "brier_min_fde6": float(brier.mean())}
