"""Trajectories as ordered visits (slot, cell): bus trips from a timetable and human person-days.

Spec §2.1: a bus trip is its stop sequence with departure times -> (slot, cell) per stop, consecutive
duplicate cells merged; a person-day is its stays (start slot, cell). Real trajectory files load
through `load_csv` into the same form (columns uid, day, slot_start and lat/lon or cell).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from proceedings.core.errors import ProceedingsError

if TYPE_CHECKING:
    from proceedings.mobta.city import City
    from proceedings.mobta.gtfs import Trip

SLOTS_PER_DAY = 48  # 30-minute slots (spec §2.1)


def slot_of(seconds: int, slot_minutes: int = 30) -> int:
    """The day slot of a time; GTFS times past 24:00 wrap into the next day's slots ("29:39:00" -> 05:39)."""
    return (seconds // (60 * slot_minutes)) % (24 * 60 // slot_minutes)


@dataclass(frozen=True)
class Trajectory:
    visits: tuple[tuple[int, int], ...]  # (slot, cell), in time order
    uid: int = 0
    day: int = 0

    @property
    def cells(self) -> list[int]:
        return [cell for _, cell in self.visits]

    @property
    def slots(self) -> list[int]:
        return [slot for slot, _ in self.visits]


def merged(visits: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """Consecutive visits to the same cell become one (the first one's slot is kept)."""
    out: list[tuple[int, int]] = []
    for slot, cell in visits:
        if not out or out[-1][1] != cell:
            out.append((slot, cell))
    return tuple(out)


def bus_trajectory(trip: "Trip", city: "City", slot_minutes: int = 30) -> Trajectory:
    """One bus trip as (slot, cell) visits; the part after a midnight crossing is cut (same service day)."""
    first_day = trip.calls[0][0] // 86400
    visits = [(slot_of(seconds, slot_minutes), city.cell_of_stop(stop_id))
              for seconds, stop_id in trip.calls if seconds // 86400 == first_day]
    return Trajectory(merged(visits))


def as_person_day(trajectory: Trajectory) -> Trajectory:
    """A bus trip read as a person-day (the bus-only arm): of several visits in one slot the last is kept,
    so stays start in strictly increasing slots."""
    by_slot: dict[int, int] = {}
    for slot, cell in trajectory.visits:
        by_slot[slot] = cell
    return Trajectory(merged(sorted(by_slot.items())), trajectory.uid, trajectory.day)


def load_csv(path: Path | str, city: "City", slot_minutes: int = 30) -> list[Trajectory]:
    """Person-days from a CSV with columns uid, day, slot_start and either lat, lon or cell.

    Rows are grouped by (uid, day) and ordered by slot_start; the trajectories are never logged.
    """
    path = Path(path)
    if not path.exists():
        raise ProceedingsError(f"trajectory file '{path}' does not exist")
    days: dict[tuple[str, str], list[tuple[int, int]]] = {}
    with path.open(newline="") as handle:
        reader = csv.DictReader(handle)
        columns = set(reader.fieldnames or ())
        if not {"uid", "day", "slot_start"} <= columns or not ({"lat", "lon"} <= columns or "cell" in columns):
            raise ProceedingsError(f"{path.name}: needs columns uid, day, slot_start and lat, lon (or cell); "
                                   f"has {', '.join(sorted(columns)) or 'none'}")
        for number, row in enumerate(reader, start=2):
            try:
                slot = int(row["slot_start"])
                cell = int(row["cell"]) if "cell" in columns and row.get("cell") else \
                    city.cell_of_point(float(row["lat"]), float(row["lon"]))
            except (ValueError, TypeError):
                raise ProceedingsError(f"{path.name} row {number}: slot_start and lat/lon (or cell) must be numbers") from None
            if not 0 <= slot < SLOTS_PER_DAY * 30 // slot_minutes or not 0 <= cell < city.grid ** 2:
                raise ProceedingsError(f"{path.name} row {number}: slot {slot} or cell {cell} is outside the day/grid")
            days.setdefault((row["uid"], row["day"]), []).append((slot, cell))
    uids = {uid: i for i, uid in enumerate(sorted({u for u, _ in days}))}
    return [Trajectory(merged(sorted(visits)), uids[uid], int(day) if day.isdigit() else 0)
            for (uid, day), visits in sorted(days.items())]
