"""Property-based tests for python-dateutil 4.0.0 (dateutil-tzstr)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug. The oracle is the IANA tz database (zoneinfo), whose
America/New_York follows the same rule as the POSIX string from 2007 on."""
import datetime
from zoneinfo import ZoneInfo

from hypothesis import assume

from dateutil import tz

_RULE = tz.tzstr("EST5EDT,M3.2.0,M11.1.0")
_NEW_YORK = ZoneInfo("America/New_York")
_UTC = datetime.timezone.utc


def _in_years(moment: datetime.datetime) -> datetime.datetime:
    """`moment` moved into 2007-2099 (any datetime; 29 February only into leap years)."""
    year = 2007 + (moment.year - 2007) % 93
    assume(not (moment.month == 2 and moment.day == 29) or year % 4 == 0)
    return moment.replace(year=year)


def _exists(wall: datetime.datetime) -> bool:
    """Whether New York's clocks show `wall` at some instant (not in the skipped spring hour)."""
    back = wall.replace(tzinfo=_NEW_YORK).astimezone(_UTC).astimezone(_NEW_YORK)
    return back.replace(tzinfo=None) == wall.replace(fold=0)


def prop_is_ambiguous_matches_tzdata(moment: datetime.datetime) -> None:
    """is_ambiguous(wall) holds exactly for the wall times New York shows twice."""
    wall = _in_years(moment)
    twice = wall.replace(fold=0, tzinfo=_NEW_YORK).utcoffset() != wall.replace(fold=1, tzinfo=_NEW_YORK).utcoffset()
    assert _RULE.is_ambiguous(wall) == (twice and _exists(wall)), wall


def prop_wall_time_offset(moment: datetime.datetime) -> None:
    """An existing wall-clock time (fold as given) has the tz database's UTC offset and zone name."""
    wall = _in_years(moment)
    assume(_exists(wall))
    ours, theirs = wall.replace(tzinfo=_RULE), wall.replace(tzinfo=_NEW_YORK)
    assert (ours.utcoffset(), ours.tzname()) == (theirs.utcoffset(), theirs.tzname()), wall


def prop_utc_to_local_fold(moment: datetime.datetime) -> None:
    """An instant (read as UTC) converts to the tz database's wall-clock time and fold."""
    instant = _in_years(moment).replace(tzinfo=_UTC)
    ours, theirs = instant.astimezone(_RULE), instant.astimezone(_NEW_YORK)
    assert (ours.replace(tzinfo=None), ours.fold) == (theirs.replace(tzinfo=None), theirs.fold), instant


def prop_utc_to_local_wall_clock(moment: datetime.datetime) -> None:
    """An instant (read as UTC) converts to the wall-clock time New York shows then."""
    instant = _in_years(moment).replace(tzinfo=_UTC)
    ours, theirs = instant.astimezone(_RULE), instant.astimezone(_NEW_YORK)
    assert ours.replace(tzinfo=None) == theirs.replace(tzinfo=None, fold=0), instant


import datetime

from hypothesis import strategies as st


def _november_changeover(year: int) -> datetime.date:
    first = datetime.date(year, 11, 1)
    return first + datetime.timedelta(days=6 - first.weekday())  # the first Sunday of November


def _on_changeover(clock_times):
    return st.builds(lambda y, t: datetime.datetime.combine(_november_changeover(y), t), st.integers(2007, 2099), clock_times)


_years = st.integers(2007, 2099)

STRATEGIES = {
    # wall times at and around the start of the repeated hour (01:00:00)
    "prop_is_ambiguous_matches_tzdata": dict(moment=_on_changeover(st.builds(
        lambda s, fold: (datetime.datetime(2000, 1, 1, 1) + datetime.timedelta(seconds=s)).time().replace(fold=fold),
        st.integers(-2, 2), st.sampled_from([0, 1])))),
    # wall times inside the repeated hour, either fold
    "prop_wall_time_offset": dict(moment=_on_changeover(st.builds(
        lambda m, s, fold: datetime.time(1, m, s, fold=fold), st.integers(5, 55), st.integers(0, 59), st.sampled_from([0, 1])))),
    # UTC instants in the hour before daylight time ends (05:00-05:59 UTC: the first 01:xx in New York)
    "prop_utc_to_local_fold": dict(moment=_on_changeover(st.builds(datetime.time, st.just(5), st.integers(0, 59)))),
    # the UTC instant daylight time ends (06:00:00 UTC), and its neighbours
    "prop_utc_to_local_wall_clock": dict(moment=_on_changeover(st.builds(
        lambda s: (datetime.datetime(2000, 1, 1, 6) + datetime.timedelta(seconds=s)).time(), st.integers(-1, 1)))),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_is_ambiguous_matches_tzdata'])
def test_is_ambiguous_matches_tzdata(moment):
    prop_is_ambiguous_matches_tzdata(moment)


@settings(max_examples=200)
@given(**STRATEGIES['prop_wall_time_offset'])
def test_wall_time_offset(moment):
    prop_wall_time_offset(moment)


@settings(max_examples=200)
@given(**STRATEGIES['prop_utc_to_local_fold'])
def test_utc_to_local_fold(moment):
    prop_utc_to_local_fold(moment)


@settings(max_examples=200)
@given(**STRATEGIES['prop_utc_to_local_wall_clock'])
def test_utc_to_local_wall_clock(moment):
    prop_utc_to_local_wall_clock(moment)
