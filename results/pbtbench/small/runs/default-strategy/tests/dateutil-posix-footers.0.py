"""Property-based tests for python-dateutil 4.0.0 (dateutil-posix-footers)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug. The oracle is CPython's zoneinfo, which reads the same
tz database files and shares no code with dateutil; rule years are those after the files' last
explicit transition (2038 on)."""
import datetime
from zoneinfo import ZoneInfo

from hypothesis import assume

from dateutil import tz

_UTC = datetime.timezone.utc


def _in_rule_years(moment: datetime.datetime) -> datetime.datetime:
    """`moment` moved into 2038-2437, one whole 400-year calendar cycle (29 February only into leap years)."""
    year = 2038 + (moment.year - 2038) % 400
    assume(not (moment.month == 2 and moment.day == 29) or year % 4 == 0 and (year % 100 != 0 or year % 400 == 0))
    return moment.replace(year=year)


def _check_wall_time(key: str, moment: datetime.datetime) -> None:
    """`moment`, moved into the rule years, has zoneinfo's offset, name and DST amount (fold as given)."""
    wall = _in_rule_years(moment)
    ours, theirs = wall.replace(tzinfo=tz.gettz(key)), wall.replace(tzinfo=ZoneInfo(key))
    assert (ours.utcoffset(), ours.tzname(), ours.dst()) == (theirs.utcoffset(), theirs.tzname(), theirs.dst()), wall


def prop_dublin_wall_time(moment: datetime.datetime) -> None:
    """A Dublin wall time (negative DST) has zoneinfo's offset, name and DST amount."""
    _check_wall_time("Europe/Dublin", moment)


def _check_instant(key: str, moment: datetime.datetime) -> None:
    """`moment`, moved into the rule years and read as UTC, converts to zoneinfo's wall time and fold."""
    instant = _in_rule_years(moment).replace(tzinfo=_UTC)
    ours, theirs = instant.astimezone(tz.gettz(key)), instant.astimezone(ZoneInfo(key))
    assert (ours.replace(tzinfo=None), ours.fold) == (theirs.replace(tzinfo=None), theirs.fold), instant


def prop_dublin_instant(moment: datetime.datetime) -> None:
    """An instant (read as UTC) converts to zoneinfo's Dublin wall time and fold."""
    _check_instant("Europe/Dublin", moment)


def prop_lord_howe_instant(moment: datetime.datetime) -> None:
    """An instant (read as UTC) converts to zoneinfo's Lord Howe wall time and fold (a 30-minute DST)."""
    _check_instant("Australia/Lord_Howe", moment)


def prop_nuuk_wall_time(moment: datetime.datetime) -> None:
    """A Nuuk wall time (a negative transition time) has zoneinfo's offset, name and DST amount."""
    _check_wall_time("America/Nuuk", moment)


def prop_chatham_wall_time(moment: datetime.datetime) -> None:
    """A Chatham wall time (transition times with minutes) has zoneinfo's offset, name and DST amount."""
    _check_wall_time("Pacific/Chatham", moment)


def prop_sydney_wall_time(moment: datetime.datetime) -> None:
    """A Sydney wall time, in any year of the cycle, has zoneinfo's offset, name and DST amount."""
    _check_wall_time("Australia/Sydney", moment)


@settings(max_examples=200)
@given(moment=...)
def test_dublin_wall_time(moment: datetime.datetime):
    prop_dublin_wall_time(moment)


@settings(max_examples=200)
@given(moment=...)
def test_dublin_instant(moment: datetime.datetime):
    prop_dublin_instant(moment)


@settings(max_examples=200)
@given(moment=...)
def test_nuuk_wall_time(moment: datetime.datetime):
    prop_nuuk_wall_time(moment)


@settings(max_examples=200)
@given(moment=...)
def test_chatham_wall_time(moment: datetime.datetime):
    prop_chatham_wall_time(moment)


@settings(max_examples=200)
@given(moment=...)
def test_sydney_wall_time(moment: datetime.datetime):
    prop_sydney_wall_time(moment)


@settings(max_examples=200)
@given(moment=...)
def test_lord_howe_instant(moment: datetime.datetime):
    prop_lord_howe_instant(moment)
