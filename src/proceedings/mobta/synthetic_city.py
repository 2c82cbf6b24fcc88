"""A procedural city and its bus network, exported as a GTFS zip so it takes the real feeds' ingestion path.

Spec §5: a 20 x 20 km box anchored at a real latitude/longitude; a latent density as a Gaussian mixture
(monocentric: one CBD plus an annulus of housing; polycentric: 3-5 sub-centres); 10-25 routes, radial
(periphery -> centre) and cross-town (centre <-> centre), stops every ~400 m, service 05:30-23:30, headway
∝ 1 / (mean density along the route) clipped to 5-30 min, 20 km/h plus 20 s dwell per stop.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.mobta.city import KM_PER_DEG_LAT, KM_PER_DEG_LON_EQUATOR
from proceedings.mobta.gtfs import Stop, Trip, write_feed

LAYOUTS = ("monocentric", "polycentric")


@dataclass(frozen=True)
class CityDesign:
    layout: str = "monocentric"
    size_km: float = 20.0
    anchor: tuple[float, float] = (-16.92, 145.77)  # south-west corner (lat, lon)
    stop_spacing_km: float = 0.4
    speed_kmh: float = 20.0
    dwell_s: int = 20
    service_start_h: float = 5.5
    service_end_h: float = 23.5
    headway_min: tuple[float, float] = (5.0, 30.0)


def _centres(design: CityDesign, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Mixture centres (km) and their widths: one CBD, or 3-5 sub-centres."""
    size = design.size_km
    if design.layout == "monocentric":
        return np.array([[size / 2, size / 2]]) + rng.normal(0, 0.5, (1, 2)), np.array([2.0])
    count = int(rng.integers(3, 6))
    return rng.uniform(0.2 * size, 0.8 * size, (count, 2)), rng.uniform(1.0, 1.8, count)


def _density(points: np.ndarray, centres: np.ndarray, widths: np.ndarray, layout: str, size: float) -> np.ndarray:
    """The latent density at points (n, 2): the centres, plus a housing annulus for the monocentric city."""
    sq = ((points[:, None, :] - centres[None]) ** 2).sum(-1)
    value = (np.exp(-sq / (2 * widths ** 2))).sum(1)
    if layout == "monocentric":
        radius = np.sqrt(((points - centres[0]) ** 2).sum(-1))
        value += 0.4 * np.exp(-((radius - 0.3 * size) ** 2) / (2 * 2.0 ** 2))
    return value


def _polyline(start: np.ndarray, end: np.ndarray, rng: np.random.Generator, spacing: float) -> np.ndarray:
    """Stops every `spacing` km along start -> a bent midpoint -> end."""
    normal = np.array([-(end - start)[1], (end - start)[0]])
    middle = (start + end) / 2 + rng.normal(0, 0.12) * normal
    points = []
    for a, b in ((start, middle), (middle, end)):
        count = max(1, int(np.linalg.norm(b - a) / spacing))
        points += [a + (b - a) * t for t in np.arange(count) / count]
    return np.array(points + [end])


def _routes(design: CityDesign, centres: np.ndarray, rng: np.random.Generator) -> list[np.ndarray]:
    """Radial routes from the periphery to the nearest centre, and cross-town routes between centres."""
    size, mid = design.size_km, np.array([design.size_km / 2] * 2)
    n_radial = int(rng.integers(8, 15))
    routes = []
    for k in range(n_radial):
        angle = 2 * math.pi * (k + rng.uniform(-0.3, 0.3)) / n_radial
        edge = np.clip(mid + 0.48 * size * np.array([math.cos(angle), math.sin(angle)]), 0.2, size - 0.2)
        target = centres[np.argmin(((centres - edge) ** 2).sum(-1))]
        routes.append(_polyline(edge, target, rng, design.stop_spacing_km))
    pairs = [(i, j) for i in range(len(centres)) for j in range(i + 1, len(centres))]
    if len(centres) == 1:  # a monocentric city's cross-town routes join opposite points of the housing ring
        ring = [mid + 0.3 * size * np.array([math.cos(a), math.sin(a)]) for a in rng.uniform(0, 2 * math.pi, 4)]
        routes += [_polyline(p, 2 * mid - p, rng, design.stop_spacing_km) for p in ring]
    else:
        routes += [_polyline(centres[i], centres[j], rng, design.stop_spacing_km) for i, j in pairs]
    return routes


def generate_city(path: Path | str, design: CityDesign, seed: int) -> Path:
    """Write a seeded procedural city's bus timetable as a GTFS zip at `path`."""
    if design.layout not in LAYOUTS:
        raise ProceedingsError(f"unknown city layout '{design.layout}'; choose one of {', '.join(LAYOUTS)}")
    rng = np.random.default_rng(seed)
    centres, widths = _centres(design, rng)
    lat0, lon0 = design.anchor
    km_per_lon = KM_PER_DEG_LON_EQUATOR * math.cos(math.radians(lat0 + design.size_km / KM_PER_DEG_LAT / 2))
    stops, routes = [], {}
    for r, line in enumerate(_routes(design, centres, rng)):
        ids = [f"r{r}s{i}" for i in range(len(line))]
        stops += [Stop(i, lat0 + y / KM_PER_DEG_LAT, lon0 + x / km_per_lon) for i, (x, y) in zip(ids, line)]
        level = _density(line, centres, widths, design.layout, design.size_km).mean()
        routes[f"R{r}"] = _timetable(f"R{r}", ids, line, level, design)  # headway ∝ 1 / level
    return write_feed(path, stops, routes, agency=f"synthetic {design.layout} city {seed}")


def _timetable(route_id: str, ids: list[str], line: np.ndarray, level: float, design: CityDesign) -> list[Trip]:
    """Trips in both directions from service start to end, headway ∝ 1 / level clipped to 5-30 min."""
    low, high = design.headway_min
    headway_s = int(60 * float(np.clip(low / max(level, 1e-6), low, high)))
    hops = np.linalg.norm(np.diff(line, axis=0), axis=1)
    offsets = np.concatenate([[0.0], np.cumsum(hops / design.speed_kmh * 3600 + design.dwell_s)])
    trips = []
    for direction, order in enumerate((ids, ids[::-1])):
        times = offsets if direction == 0 else offsets[-1] - offsets[::-1]
        for k, start in enumerate(range(int(3600 * design.service_start_h), int(3600 * design.service_end_h), headway_s)):
            calls = tuple((int(start + t), stop) for t, stop in zip(times, order))
            trips.append(Trip(f"{route_id}d{direction}t{k}", route_id, "weekday", calls))
    return trips
