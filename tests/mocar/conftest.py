"""Hand-made scenes (no SUMO): arcs of constant speed and turn rate beside straight lanes, with neighbours."""

import numpy as np
import pytest

from proceedings.mocar.scenarios import NEIGHBOURS, Scenes


def arc(n: int, speed: float, rate: float, start=(0.0, 0.0), heading: float = 0.0, dt: float = 0.1):
    """(n, 2) positions and (n,) headings of a constant speed / turn-rate track."""
    t = np.arange(n) * dt
    theta = heading + rate * t
    if abs(rate) < 1e-12:
        x, y = start[0] + speed * t * np.cos(heading), start[1] + speed * t * np.sin(heading)
    else:
        x = start[0] + speed / rate * (np.sin(theta) - np.sin(heading))
        y = start[1] - speed / rate * (np.cos(theta) - np.cos(heading))
    return np.stack((x, y), 1), theta


def synthetic_scenes(n: int = 24, observed: int = 50, future: int = 60, seed: int = 0) -> Scenes:
    rng = np.random.default_rng(seed)
    L, M = observed + future, 12
    focal = np.zeros((n, L, 4), np.float32)
    nb = np.zeros((n, NEIGHBOURS, observed, 4), np.float32)
    valid = np.zeros((n, NEIGHBOURS, observed), bool)
    for i in range(n):
        speed, rate = rng.uniform(3, 12), rng.choice([0.0, rng.uniform(-0.3, 0.3)])
        xy, th = arc(L, speed, rate, start=rng.uniform(-50, 50, 2), heading=rng.uniform(-np.pi, np.pi))
        focal[i] = np.concatenate((xy, th[:, None], np.full((L, 1), speed)), 1)
        for j in range(3):
            oxy, oth = arc(observed, rng.uniform(2, 10), 0.0, start=xy[0] + rng.uniform(-20, 20, 2), heading=th[0])
            nb[i, j] = np.concatenate((oxy, oth[:, None], np.full((observed, 1), 5.0)), 1)
            valid[i, j] = True
    map_points = np.zeros((n, M, 5, 2), np.float32)
    for i in range(n):
        for m in range(M):
            start, ang = focal[i, 0, :2] + rng.uniform(-30, 30, 2), rng.uniform(-np.pi, np.pi)
            map_points[i, m] = start + np.outer(np.arange(5) * 2.0, [np.cos(ang), np.sin(ang)])
    lanes = [focal[:, :, :2].reshape(-1, 2)]
    return Scenes(focal=focal, focal_clean=focal[..., :2].copy(), neighbours=nb, neighbour_valid=valid,
                  scored=valid[..., -1], map_points=map_points, map_intersection=rng.random((n, M)) < 0.2,
                  map_valid=np.ones((n, M), bool), turn_heavy=np.zeros(n, bool), network=np.zeros(n, np.int32),
                  scenario_id=[f"synthetic:{i}@0" for i in range(n)], observed=observed, lane_points=lanes)


@pytest.fixture(scope="session")
def scenes() -> Scenes:
    return synthetic_scenes()
