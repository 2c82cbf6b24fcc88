"""SUMO makes the traffic: two documented cities, one network per seed (issue 25, spec §4.1).

City A: grid networks, priority junctions, Krauss car following, LC2013 lane changes, driver
imperfection σ = 0.5, 1-2 lanes at 13.9 m/s. City B (never seen in training): spider and random
networks with traffic lights, 2-3 lanes at 11.1-16.7 m/s, IDM car following, SL2015 sub-lane lane
changes (lateral resolution 0.8 m), σ = 0.2. Each network is made by `netgenerate`, its demand by
SUMO's `randomTrips.py`, and it is simulated at 10 Hz with `sumo --fcd-output`; every call has a
fixed argument list and a seed, so a seed fixes the traffic. Vehicle types mix cars (85 %), trucks
(10 %) and motorcycles (5 %), all with the city's models.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from proceedings.core.errors import ProceedingsError

log = logging.getLogger(__name__)
STEP_S = 0.1  # 10 Hz, the Argoverse sampling rate
INSTALL = "pip install eclipse-sumo==1.28.0 sumolib==1.28.0 (or `pip install -e '.[mocar]'`)"


@dataclass(frozen=True)
class City:
    name: str
    families: tuple[str, ...]  # netgenerate network families, cycled over the networks
    junction: str  # netgenerate --default-junction-type
    lanes: tuple[int, ...]  # lane counts drawn per network
    speeds: tuple[float, ...]  # speed limits (m/s) drawn per network
    car_following: str
    lane_change: str
    sigma: float  # driver imperfection (Krauss σ; IDM uses it as speed noise too)
    lateral_resolution: float = 0.0  # > 0 switches SUMO's sub-lane model on (SL2015)
    period_s: float = 0.6  # one new trip every period_s seconds

    def to_dict(self) -> dict:
        return asdict(self)


CITIES = {
    "A": City("A", ("grid",), "priority", (1, 2), (13.89,), "Krauss", "LC2013", 0.5),
    "B": City("B", ("spider", "rand"), "traffic_light", (2, 3), (11.11, 16.67), "IDM", "SL2015", 0.2,
              lateral_resolution=0.8),
}
VEHICLE_MIX = (("car", "passenger", 0.85, 5.0, 2.6), ("truck", "truck", 0.10, 10.0, 1.3),
               ("motorcycle", "motorcycle", 0.05, 2.2, 3.0))  # (id, vClass, share, length m, accel m/s^2)


def tool(name: str) -> str:
    """A SUMO binary from the eclipse-sumo wheel (or PATH), or a one-line error naming the install."""
    try:
        import sumo

        candidate = Path(sumo.SUMO_HOME) / "bin" / name
        if candidate.exists():
            return str(candidate)
    except ImportError:
        pass
    found = shutil.which(name)
    if found is None:
        raise ProceedingsError(f"SUMO's '{name}' is not installed: {INSTALL}")
    return found


def random_trips_script() -> str:
    try:
        import sumo
    except ImportError:
        raise ProceedingsError(f"SUMO's tools (randomTrips.py) are not installed: {INSTALL}") from None
    return str(Path(sumo.SUMO_HOME) / "tools" / "randomTrips.py")


def _run(args: list[str], what: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ}
    try:
        import sumo

        env["SUMO_HOME"] = sumo.SUMO_HOME
    except ImportError:
        pass
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise ProceedingsError(f"SUMO {what} failed (exit {done.returncode}): {' | '.join(tail)}")
    return done


def network_args(city: City, family: str, seed: int) -> list[str]:
    """netgenerate's arguments for one network of `city` (lanes and speed drawn from the seed)."""
    rng = np.random.default_rng(seed)
    lanes, speed = int(rng.choice(city.lanes)), float(rng.choice(city.speeds))
    common = ["--seed", str(seed), "--default.lanenumber", str(lanes), "--default.speed", f"{speed:.2f}",
              "--default-junction-type", city.junction, "--no-turnarounds.except-deadend", "true"]
    if family == "grid":
        n, length = int(rng.integers(4, 6)), float(rng.uniform(90, 140))
        return ["--grid", "--grid.number", str(n), "--grid.length", f"{length:.1f}", *common]
    if family == "spider":
        return ["--spider", "--spider.arm-number", str(int(rng.integers(5, 8))), "--spider.circle-number", "3",
                "--spider.space-radius", f"{float(rng.uniform(80, 120)):.1f}", "--spider.omit-center", "true", *common]
    if family == "rand":
        return ["--rand", "--rand.iterations", "40", "--rand.grid", "true", "--rand.min-distance", "60",
                "--rand.max-distance", "160", *common]
    raise ProceedingsError(f"unknown network family '{family}'; use grid, spider or rand")


def vehicle_types(city: City) -> str:
    """An additional file redefining SUMO's default vehicle type as the city's type distribution."""
    types = "".join(
        f'    <vType id="{name}" vClass="{vclass}" length="{length}" accel="{accel}" probability="{share}" '
        f'carFollowModel="{city.car_following}" laneChangeModel="{city.lane_change}" sigma="{city.sigma}"/>\n'
        for name, vclass, share, length, accel in VEHICLE_MIX)
    return f'<additional>\n  <vTypeDistribution id="DEFAULT_VEHTYPE">\n{types}  </vTypeDistribution>\n</additional>\n'


@dataclass
class Simulation:
    """One simulated network: its files and what SUMO reported."""

    net: Path
    fcd: Path
    family: str
    seed: int
    sim_seconds: float
    wall_s: float
    teleports: int
    collisions: int


def simulate(city: City, family: str, seed: int, sim_seconds: float, workdir: Path) -> Simulation:
    """netgenerate -> randomTrips.py -> sumo with FCD output, in `workdir` (created)."""
    workdir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    _run([tool("netgenerate"), *network_args(city, family, seed), "-o", "net.net.xml"], "netgenerate", workdir)
    _run([sys.executable, random_trips_script(), "-n", "net.net.xml", "-o", "trips.xml", "-b", "0", "-e",
          f"{sim_seconds:g}", "-p", f"{city.period_s:g}", "--seed", str(seed), "--fringe-factor", "5",
          "--min-distance", "150"], "randomTrips.py", workdir)
    (workdir / "types.add.xml").write_text(vehicle_types(city))
    args = [tool("sumo"), "-n", "net.net.xml", "-a", "types.add.xml", "-r", "trips.xml", "--step-length", f"{STEP_S}",
            "--begin", "0", "--end", f"{sim_seconds:g}", "--seed", str(seed), "--fcd-output", "fcd.xml",
            "--fcd-output.attributes", "x,y,angle,speed,type", "--statistic-output", "stats.xml",
            "--ignore-route-errors", "true", "--no-step-log", "true", "--time-to-teleport", "60",
            "--collision.action", "warn"]
    if city.lateral_resolution > 0:
        args += ["--lateral-resolution", f"{city.lateral_resolution}"]
    _run(args, "sumo", workdir)
    teleports, collisions = _statistics(workdir / "stats.xml")
    if teleports:
        log.warning("SUMO %s network (seed %d): %d teleports", family, seed, teleports)
    return Simulation(workdir / "net.net.xml", workdir / "fcd.xml", family, seed, sim_seconds,
                      time.perf_counter() - t0, teleports, collisions)


def _statistics(path: Path) -> tuple[int, int]:
    """(teleports, collisions) from SUMO's statistic output."""
    root = ET.parse(path).getroot()
    teleports = root.find("teleports")
    safety = root.find("safety")
    return (int(teleports.get("total", 0)) if teleports is not None else 0,
            int(safety.get("collisions", 0)) if safety is not None else 0)


def read_fcd(path: Path) -> dict[str, np.ndarray]:
    """FCD XML -> {vehicle id: (n, 5) float64 [step, x, y, heading, speed]}; heading in radians from +x.

    SUMO's angle is navigational (degrees, 0 = north, clockwise): θ = radians(90 - angle).
    """
    rows: dict[str, list[tuple[float, ...]]] = {}
    step = -1
    for event, elem in ET.iterparse(path, events=("start", "end")):
        if event == "start" and elem.tag == "timestep":
            step = int(round(float(elem.get("time")) / STEP_S))
        elif event == "end" and elem.tag == "vehicle":
            rows.setdefault(elem.get("id"), []).append(
                (step, float(elem.get("x")), float(elem.get("y")), float(elem.get("angle")), float(elem.get("speed"))))
            elem.clear()
        elif event == "end" and elem.tag == "timestep":
            elem.clear()
    tracks = {}
    for vid, values in rows.items():
        a = np.asarray(values)
        a[:, 3] = np.arctan2(np.sin(np.radians(90.0 - a[:, 3])), np.cos(np.radians(90.0 - a[:, 3])))
        tracks[vid] = a
    return tracks


def vehicle_states(tracks: dict[str, np.ndarray]) -> int:
    return int(sum(len(t) for t in tracks.values()))

