"""`generate`: a city's networks simulated by SUMO and cut into scenario shards (issue 25, spec §6).

One network per seed (seed, seed+1, ...), families cycled from the city's list. Each network's shard
and map are written atomically, and the manifest after every network, so an interrupted run resumes
at the first missing network; a network whose shard exists is not simulated again.
"""

from __future__ import annotations

import json
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.core.progress import progress_bar
from proceedings.core.runtime import atomic_write_text
from proceedings.mocar.maps import chunks, export_lanes, lane_points
from proceedings.mocar.scenarios import build_shard, cut_windows, dense_states, protocol, write_shard
from proceedings.mocar.traffic import CITIES, STEP_S, read_fcd, simulate, vehicle_states

WARMUP_S = 20.0


@dataclass(frozen=True)
class SimSpec:
    """What to generate; its fields go into the manifest and decide whether a shard can be reused."""

    city: str = "A"
    n_networks: int = 1
    sim_seconds: float = 120.0
    seed: int = 0
    protocol: str = "av2"
    stride_s: float = 1.0  # window starts every stride_s (all vehicles on one grid)
    max_windows: int = 2000  # per network, drawn at random (seeded) when more are admissible

    def check(self) -> "SimSpec":
        if self.city not in CITIES:
            raise ProceedingsError(f"unknown city '{self.city}'; use A (grid) or B (spider/rand)")
        proto = protocol(self.protocol)
        if self.n_networks < 1:
            raise ProceedingsError(f"n_networks must be >= 1, got {self.n_networks}")
        if self.sim_seconds < WARMUP_S + proto.length * STEP_S:
            raise ProceedingsError(f"sim_seconds={self.sim_seconds:g} leaves no {proto.name} window after the "
                                   f"{WARMUP_S:g} s warm-up; use at least {WARMUP_S + proto.length * STEP_S:g}")
        return self


def generate(out_dir: Path | str, spec: SimSpec) -> dict:
    """Simulate every network of `spec` not yet in `out_dir`; returns the manifest."""
    spec.check()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    manifest_path = out_dir / "manifest.json"
    key = {k: v for k, v in spec.__dict__.items() if k != "n_networks"}
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {"spec": key, "networks": []}
    if manifest["spec"] != key:
        raise ProceedingsError(f"'{out_dir}' holds scenarios made with {manifest['spec']}; use another directory")
    city = CITIES[spec.city]
    done = {n["seed"] for n in manifest["networks"] if (out_dir / n["file"]).exists()}
    manifest["networks"] = [n for n in manifest["networks"] if n["seed"] in done]
    todo = [spec.seed + i for i in range(spec.n_networks) if spec.seed + i not in done]
    for seed in progress_bar(todo, desc=f"simulate city {spec.city}", unit="network"):
        family = city.families[(seed - spec.seed) % len(city.families)]
        manifest["networks"].append(simulate_network(out_dir, spec, family, seed))
        manifest["networks"].sort(key=lambda n: n["seed"])
        manifest["city"] = city.to_dict()
        atomic_write_text(manifest_path, json.dumps(manifest, indent=1))
    return manifest


def simulate_network(out_dir: Path, spec: SimSpec, family: str, seed: int) -> dict:
    """One network: SUMO run, map export, windows, shard; returns its manifest entry."""
    proto = protocol(spec.protocol)
    with tempfile.TemporaryDirectory(prefix="mocar-sumo-") as tmp:
        sim = simulate(CITIES[spec.city], family, seed, spec.sim_seconds, Path(tmp))
        t0 = time.perf_counter()
        tracks = read_fcd(sim.fcd)
        lanes = export_lanes(sim.net)
    ids, states = dense_states(tracks, int(round(spec.sim_seconds / STEP_S)) + 1)
    windows = cut_windows(states, proto, int(round(spec.stride_s / STEP_S)), int(round(WARMUP_S / STEP_S)))
    if len(windows) > spec.max_windows:
        pick = np.random.default_rng(seed).choice(len(windows), spec.max_windows, replace=False)
        windows = [windows[i] for i in sorted(pick)]
    if not windows:
        raise ProceedingsError(f"SUMO {family} network (seed {seed}) gave no {proto.name} window; simulate longer")
    chunk_points, chunk_flags = chunks(lanes)
    arrays = build_shard(states, ids, windows, proto, chunk_points, chunk_flags, lane_points(lanes), seed)
    name = f"{spec.city}_{family}_{seed}"
    write_shard(out_dir / f"{name}.npz", arrays)
    atomic_write_text(out_dir / f"{name}.map.json", json.dumps({"lane_segments": lanes}))
    states_n = vehicle_states(tracks)
    return {"file": f"{name}.npz", "map": f"{name}.map.json", "family": family, "seed": seed,
            "windows": len(windows), "turn_heavy": int(arrays["turn_heavy"].sum()),
            "lane_segments": len(lanes), "intersection_lanes": int(sum(l["is_intersection"] for l in lanes)),
            "vehicles": len(tracks), "vehicle_states": states_n, "sumo_wall_s": round(sim.wall_s, 2),
            "vehicle_states_per_s": round(states_n / sim.wall_s, 1),
            "windows_per_s": round(len(windows) / (time.perf_counter() - t0), 1),
            "teleports": sim.teleports, "collisions": sim.collisions}
