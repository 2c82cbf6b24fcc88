"""GTFS timetables read with the standard library (`zipfile` + `csv`), and written back for generated cities.

A feed gives the stops (coordinates), the routes and, per trip, its stop sequence with departure
times. GTFS times may pass 24:00 ("29:39:00" is 05:39 the next morning); they are kept as seconds
after the service day's midnight and only wrapped when turned into slots (`tokenization.slot_of`).
Bad input stops with one line naming the file and the row (spec §7).
"""

from __future__ import annotations

import csv
import io
import zipfile
from dataclasses import dataclass
from pathlib import Path

from proceedings.core.errors import ProceedingsError

REQUIRED = ("stops.txt", "routes.txt", "trips.txt", "stop_times.txt")


@dataclass(frozen=True)
class Stop:
    stop_id: str
    lat: float
    lon: float


@dataclass(frozen=True)
class Trip:
    trip_id: str
    route_id: str
    service_id: str
    calls: tuple[tuple[int, str], ...]  # (seconds after the service day's midnight, stop_id), in stop_sequence order


@dataclass
class Feed:
    name: str
    stops: dict[str, Stop]
    routes: list[str]
    trips: list[Trip]
    services: list[str]  # service_ids with a calendar or calendar_dates entry

    def trips_per_stop(self) -> dict[str, int]:
        counts = dict.fromkeys(self.stops, 0)
        for trip in self.trips:
            for stop_id in {s for _, s in trip.calls}:
                counts[stop_id] = counts.get(stop_id, 0) + 1
        return counts

    def stop_time_count(self) -> int:
        return sum(len(t.calls) for t in self.trips)


def parse_time(text: str, where: str) -> int:
    """'HH:MM:SS' (hours may exceed 23) -> seconds after the service day's midnight."""
    try:
        hours, minutes, seconds = (int(part) for part in text.strip().split(":"))
    except ValueError:
        raise ProceedingsError(f"{where}: time '{text}' is not HH:MM:SS") from None
    return 3600 * hours + 60 * minutes + seconds


def _rows(archive: zipfile.ZipFile, member: str, feed_name: str):
    """(row number, dict) for each data row of one GTFS table; row 2 is the first after the header."""
    with archive.open(member) as raw:
        reader = csv.reader(io.TextIOWrapper(raw, encoding="utf-8-sig"))
        header = [column.strip() for column in next(reader, [])]
        for number, row in enumerate(reader, start=2):
            yield number, dict(zip(header, row))


def _members(archive: zipfile.ZipFile) -> dict[str, str]:
    """Table name -> member path (feeds are sometimes zipped inside a folder)."""
    return {Path(name).name: name for name in archive.namelist() if name.endswith(".txt")}


def read_feed(path: Path | str) -> Feed:
    """Read a GTFS zip: stops, routes, trips with their timed stop sequences, services."""
    path = Path(path)
    if not path.exists():
        raise ProceedingsError(f"GTFS feed '{path}' does not exist; pass a GTFS zip file")
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise ProceedingsError(f"GTFS feed '{path}' is not a zip file") from None
    with archive:
        members = _members(archive)
        for table in REQUIRED:
            if table not in members:
                raise ProceedingsError(f"{path.name}: no {table} in the feed; a GTFS feed needs {', '.join(REQUIRED)}")
        stops = _read_stops(archive, members["stops.txt"], path.name)
        routes = [row.get("route_id", "") for _, row in _rows(archive, members["routes.txt"], path.name)]
        services = _read_services(archive, members, path.name)
        trip_meta = {row["trip_id"]: (row.get("route_id", ""), row.get("service_id", ""))
                     for _, row in _rows(archive, members["trips.txt"], path.name)}
        calls = _read_stop_times(archive, members["stop_times.txt"], path.name, stops, trip_meta)
    trips = [Trip(trip_id, *trip_meta[trip_id], tuple((t, s) for _, t, s in sorted(seq)))
             for trip_id, seq in calls.items() if seq]
    return Feed(path.stem, stops, routes, trips, services)


def _read_stops(archive: zipfile.ZipFile, member: str, name: str) -> dict[str, Stop]:
    stops = {}
    for number, row in _rows(archive, member, name):
        try:
            lat, lon = float(row["stop_lat"]), float(row["stop_lon"])
        except (KeyError, ValueError):
            raise ProceedingsError(f"{name}: stops.txt row {number}: stop '{row.get('stop_id', '?')}' "
                                   "has no stop_lat/stop_lon coordinates") from None
        stops[row["stop_id"]] = Stop(row["stop_id"], lat, lon)
    if not stops:
        raise ProceedingsError(f"{name}: stops.txt has no rows")
    return stops


def _read_services(archive: zipfile.ZipFile, members: dict[str, str], name: str) -> list[str]:
    """Service ids from calendar.txt and calendar_dates.txt; a feed with neither has no service."""
    services: list[str] = []
    for table in ("calendar.txt", "calendar_dates.txt"):
        if table in members:
            services += [row.get("service_id", "") for _, row in _rows(archive, members[table], name)]
    if not services:
        tables = [t for t in ("calendar.txt", "calendar_dates.txt") if t in members]
        raise ProceedingsError(f"{name}: {' and '.join(tables) or 'calendar.txt'} "
                               f"{'has no rows' if tables else 'is missing'}: the feed has no service calendar")
    return sorted(set(services))


def _read_stop_times(archive, member: str, name: str, stops: dict[str, Stop],
                     trip_meta: dict[str, tuple[str, str]]) -> dict[str, list[tuple[int, int, str]]]:
    """trip_id -> [(stop_sequence, seconds, stop_id)]; untimed (interpolated) calls are skipped."""
    calls: dict[str, list[tuple[int, int, str]]] = {}
    for number, row in _rows(archive, member, name):
        where = f"{name}: stop_times.txt row {number}"
        if row.get("stop_id") not in stops:
            raise ProceedingsError(f"{where}: stop '{row.get('stop_id')}' is not in stops.txt")
        if row.get("trip_id") not in trip_meta:
            raise ProceedingsError(f"{where}: trip '{row.get('trip_id')}' is not in trips.txt")
        text = row.get("departure_time") or row.get("arrival_time")
        if not text:
            continue
        calls.setdefault(row["trip_id"], []).append((int(row.get("stop_sequence") or 0), parse_time(text, where),
                                                     row["stop_id"]))
    return calls


def write_feed(path: Path | str, stops: list[Stop], routes: dict[str, list[Trip]], agency: str) -> Path:
    """Write a minimal valid GTFS zip (agency, stops, routes, trips, stop_times, calendar)."""

    def table(header: list[str], rows: list[list]) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        return out.getvalue()

    def hms(seconds: int) -> str:
        minutes, second = divmod(seconds, 60)
        return "%02d:%02d:%02d" % (minutes // 60, minutes % 60, second)

    trips = [trip for route_trips in routes.values() for trip in route_trips]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr("agency.txt", table(["agency_id", "agency_name", "agency_url", "agency_timezone"],
                                             [["A", agency, "https://example.invalid", "UTC"]]))
        archive.writestr("stops.txt", table(["stop_id", "stop_name", "stop_lat", "stop_lon"],
                                            [[s.stop_id, s.stop_id, f"{s.lat:.6f}", f"{s.lon:.6f}"] for s in stops]))
        archive.writestr("routes.txt", table(["route_id", "agency_id", "route_short_name", "route_type"],
                                             [[r, "A", r, 3] for r in routes]))
        archive.writestr("trips.txt", table(["route_id", "service_id", "trip_id"],
                                            [[t.route_id, t.service_id, t.trip_id] for t in trips]))
        archive.writestr("stop_times.txt", table(
            ["trip_id", "arrival_time", "departure_time", "stop_id", "stop_sequence"],
            [[t.trip_id, hms(s), hms(s), stop_id, i + 1] for t in trips for i, (s, stop_id) in enumerate(t.calls)]))
        archive.writestr("calendar.txt", table(
            ["service_id", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
             "start_date", "end_date"],
            [[service, 1, 1, 1, 1, 1, 0, 0, "20260101", "20261231"] for service in sorted({t.service_id for t in trips})]))
    return path
