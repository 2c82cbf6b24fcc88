"""A city: its bus stops on a relative G x G grid over the padded bounding box, and its bus trips.

Spec §2.1: cell (r, c) means "the same relative position" in every city, so two cities share one token
space; distances are measured in the city's own kilometres (equirectangular projection of the box).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.mobta.gtfs import Feed, read_feed
from proceedings.mobta.trajectories import Trajectory, bus_trajectory

KM_PER_DEG_LAT = 110.574
KM_PER_DEG_LON_EQUATOR = 111.320
BBOX_PAD = 0.02  # spec §2.1: the stops' bounding box padded by 2 %


@dataclass
class City:
    name: str
    south: float
    west: float
    north: float
    east: float
    grid: int
    stop_ids: list[str]
    stops_km: np.ndarray  # (stops, 2): x east, y north, km from the south-west corner
    trips_per_stop: np.ndarray  # (stops,)
    bus_trips: list[Trajectory] = field(default_factory=list)
    feed_stats: dict = field(default_factory=dict)
    stop_cells: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_feed(cls, feed: Feed, grid: int = 16, slot_minutes: int = 30) -> "City":
        if grid < 2:
            raise ProceedingsError(f"grid must be at least 2, got {grid}")
        lats = np.array([s.lat for s in feed.stops.values()])
        lons = np.array([s.lon for s in feed.stops.values()])
        pad_lat, pad_lon = BBOX_PAD * max(np.ptp(lats), 1e-3), BBOX_PAD * max(np.ptp(lons), 1e-3)
        counts = feed.trips_per_stop()
        city = cls(feed.name, lats.min() - pad_lat, lons.min() - pad_lon, lats.max() + pad_lat, lons.max() + pad_lon,
                   grid, list(feed.stops), np.zeros((0, 2)), np.array([counts[s] for s in feed.stops], dtype=float))
        city.stops_km = np.stack([city.project(la, lo) for la, lo in zip(lats, lons)])
        city.stop_cells = {s: city.cell_of_km(*xy) for s, xy in zip(city.stop_ids, city.stops_km)}
        city.bus_trips = [bus_trajectory(trip, city, slot_minutes) for trip in feed.trips]
        city.feed_stats = {"stops": len(feed.stops), "routes": len(feed.routes), "trips": len(feed.trips),
                           "stop_times": feed.stop_time_count(), "services": len(feed.services)}
        return city

    @classmethod
    def from_gtfs(cls, path: Path | str, grid: int = 16, slot_minutes: int = 30) -> "City":
        return cls.from_feed(read_feed(path), grid, slot_minutes)

    @property
    def cos_lat(self) -> float:
        return math.cos(math.radians((self.south + self.north) / 2))

    @property
    def size_km(self) -> tuple[float, float]:
        return ((self.east - self.west) * KM_PER_DEG_LON_EQUATOR * self.cos_lat,
                (self.north - self.south) * KM_PER_DEG_LAT)

    def project(self, lat: float, lon: float) -> np.ndarray:
        return np.array([(lon - self.west) * KM_PER_DEG_LON_EQUATOR * self.cos_lat, (lat - self.south) * KM_PER_DEG_LAT])

    def cell_of_km(self, x: float, y: float) -> int:
        width, height = self.size_km
        col = min(max(int(x / width * self.grid), 0), self.grid - 1)
        row = min(max(int(y / height * self.grid), 0), self.grid - 1)
        return row * self.grid + col

    def cell_of_point(self, lat: float, lon: float) -> int:
        return self.cell_of_km(*self.project(lat, lon))

    def cell_of_stop(self, stop_id: str) -> int:
        return self.stop_cells[stop_id]

    def cell_centres_km(self) -> np.ndarray:
        """(G*G, 2) cell centres in km, cell index = row * G + col (row 0 in the south)."""
        width, height = self.size_km
        rows, cols = np.divmod(np.arange(self.grid ** 2), self.grid)
        return np.stack([(cols + 0.5) * width / self.grid, (rows + 0.5) * height / self.grid], axis=1)
