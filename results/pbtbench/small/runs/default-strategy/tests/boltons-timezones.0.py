"""Property-based tests for boltons 26.2.0 (boltons-timezones)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug. The oracle is the IANA tz database (zoneinfo)."""
import datetime
from zoneinfo import ZoneInfo

from hypothesis import assume

from boltons.timeutils import Eastern

_NEW_YORK = ZoneInfo("America/New_York")
_UTC = datetime.timezone.utc


def _in_years(moment, first: int, count: int):
    """`moment` moved into the years first..first+count-1 (any datetime; 29 February only into leap years)."""
    year = first + (moment.year - first) % count
    assume(not (moment.month == 2 and moment.day == 29) or year % 4 == 0 and (year % 100 or year % 400 == 0))
    return moment.replace(year=year)


def prop_wall_time_offset(moment: datetime.datetime) -> None:
    """A wall-clock time (fold as given) in 2007-2099 has the tz database's UTC offset."""
    wall = _in_years(moment, 2007, 93)
    assert wall.replace(tzinfo=Eastern).utcoffset() == wall.replace(tzinfo=_NEW_YORK).utcoffset(), wall


def prop_wall_time_zone_name(moment: datetime.datetime) -> None:
    """A wall-clock time (fold as given) in 2007-2099 is called EST or EDT as the tz database calls it."""
    wall = _in_years(moment, 2007, 93)
    assert wall.replace(tzinfo=Eastern).tzname() == wall.replace(tzinfo=_NEW_YORK).tzname(), wall


def prop_utc_to_eastern_wall_clock(moment: datetime.datetime) -> None:
    """An instant in 2007-2099 (read as UTC) converts to the tz database's wall-clock time and fold."""
    instant = _in_years(moment, 2007, 93).replace(tzinfo=_UTC)
    ours, theirs = instant.astimezone(Eastern), instant.astimezone(_NEW_YORK)
    assert (ours.replace(tzinfo=None), ours.fold) == (theirs.replace(tzinfo=None), theirs.fold), instant


def prop_utc_to_eastern_zone_name(moment: datetime.datetime) -> None:
    """An instant in 2007-2099 (read as UTC), converted to Eastern, is called EST or EDT as the tz database calls it."""
    instant = _in_years(moment, 2007, 93).replace(tzinfo=_UTC)
    assert instant.astimezone(Eastern).tzname() == instant.astimezone(_NEW_YORK).tzname(), instant


def prop_daylight_days(day: datetime.date) -> None:
    """At noon of any day in 1987-2099, daylight saving time is in effect exactly when the tz database says so."""
    day = _in_years(datetime.datetime.combine(day, datetime.time()), 1987, 113).date()
    noon = datetime.datetime.combine(day, datetime.time(12))
    assert noon.replace(tzinfo=Eastern).dst() == noon.replace(tzinfo=_NEW_YORK).dst(), day


@settings(max_examples=200)
@given(moment=...)
def test_wall_time_offset(moment: datetime.datetime):
    prop_wall_time_offset(moment)


@settings(max_examples=200)
@given(moment=...)
def test_wall_time_zone_name(moment: datetime.datetime):
    prop_wall_time_zone_name(moment)


@settings(max_examples=200)
@given(moment=...)
def test_utc_to_eastern_wall_clock(moment: datetime.datetime):
    prop_utc_to_eastern_wall_clock(moment)


@settings(max_examples=200)
@given(moment=...)
def test_utc_to_eastern_zone_name(moment: datetime.datetime):
    prop_utc_to_eastern_zone_name(moment)
