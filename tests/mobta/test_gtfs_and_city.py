"""GTFS ingestion: the real Cairns feed's counts, times past midnight, one-line errors on bad feeds."""

import zipfile

import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.mobta.city import City
from proceedings.mobta.feeds import feed_path
from proceedings.mobta.gtfs import Stop, Trip, parse_time, read_feed, write_feed
from proceedings.mobta.trajectories import slot_of


@pytest.fixture(scope="module")
def cairns():
    return City.from_gtfs(feed_path("cairns"))


def test_cairns_ingest_counts_stops_routes_and_trips_and_makes_one_trajectory_per_trip(cairns):
    assert (cairns.feed_stats["stops"], cairns.feed_stats["routes"], cairns.feed_stats["trips"]) == (416, 22, 1339)
    assert len(cairns.bus_trips) == 1339
    assert all(t.visits and all(a[1] != b[1] for a, b in zip(t.visits, t.visits[1:])) for t in cairns.bus_trips)


def test_times_past_midnight_land_in_the_next_days_slot(cairns):
    assert slot_of(parse_time("29:39:00", "test")) == 11  # 05:39 the next morning
    feed = read_feed(feed_path("cairns"))
    late = [t for t in feed.trips if t.calls[0][0] >= 86400]
    assert late, "Cairns has trips that start after 24:00"
    trip = late[0]
    index = feed.trips.index(trip)
    assert cairns.bus_trips[index].visits[0][0] == slot_of(trip.calls[0][0]) < 24


def _feed(tmp_path, **tables):
    """A tiny valid feed, with any table replaced (None removes it)."""
    path = write_feed(tmp_path / "feed.zip", [Stop("a", -16.9, 145.7), Stop("b", -16.95, 145.75)],
                      {"R": [Trip("t1", "R", "wk", ((3600, "a"), (3900, "b")))]}, agency="test")
    with zipfile.ZipFile(path) as archive:
        contents = {name: archive.read(name).decode() for name in archive.namelist()}
    for name, text in tables.items():
        if text is None:
            contents.pop(f"{name}.txt")
        else:
            contents[f"{name}.txt"] = text
    out = tmp_path / "edited.zip"
    with zipfile.ZipFile(out, "w") as archive:
        for name, text in contents.items():
            archive.writestr(name, text)
    return out


def test_a_written_feed_reads_back_exactly(tmp_path):
    feed = read_feed(_feed(tmp_path))
    assert len(feed.stops) == 2 and feed.routes == ["R"]
    assert feed.trips[0].calls == ((3600, "a"), (3900, "b"))


@pytest.mark.parametrize("tables, message", [
    ({"stops": None}, "no stops.txt"),
    ({"stop_times": None}, "no stop_times.txt"),
    ({"stops": "stop_id,stop_name,stop_lat,stop_lon\na,a,-16.9,145.7\nb,b,,145.75\n"}, "stops.txt row 3: stop 'b'"),
    ({"calendar": "service_id,monday\n"}, "calendar.txt has no rows"),
])
def test_bad_feeds_stop_with_one_line_naming_file_and_row(tmp_path, tables, message):
    with pytest.raises(ProceedingsError, match=message) as err:
        read_feed(_feed(tmp_path, **tables))
    assert "\n" not in str(err.value) and str(err.value).startswith("edited.zip")
