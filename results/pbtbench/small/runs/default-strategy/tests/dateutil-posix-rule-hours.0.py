"""Property-based tests for python-dateutil 4.0.0 (dateutil-posix-rule-hours)."""
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


def prop_lord_howe_wall_time_april(moment: datetime.datetime) -> None:
    """A Lord Howe wall time has zoneinfo's offset, name and DST amount, in particular around the end of summer time."""
    _check_wall_time("Australia/Lord_Howe", moment)


def prop_lord_howe_wall_time_october(moment: datetime.datetime) -> None:
    """A Lord Howe wall time has zoneinfo's offset, name and DST amount, in particular around the start of summer time."""
    _check_wall_time("Australia/Lord_Howe", moment)


def prop_sydney_instant(moment: datetime.datetime) -> None:
    """An instant (read as UTC) converts to zoneinfo's Sydney wall time and fold."""
    instant = _in_rule_years(moment).replace(tzinfo=_UTC)
    ours, theirs = instant.astimezone(tz.gettz("Australia/Sydney")), instant.astimezone(ZoneInfo("Australia/Sydney"))
    assert (ours.replace(tzinfo=None), ours.fold) == (theirs.replace(tzinfo=None), theirs.fold), instant


def prop_lord_howe_resolve_imaginary(moment: datetime.datetime) -> None:
    """resolve_imaginary leaves an existing Lord Howe wall time alone and moves an imaginary one forward by the gap."""
    key = "Australia/Lord_Howe"
    wall = _in_rule_years(moment)
    oracle = wall.replace(tzinfo=ZoneInfo(key))
    exists = oracle.astimezone(_UTC).astimezone(ZoneInfo(key)).replace(tzinfo=None) == wall.replace(fold=0)
    gap = oracle.replace(fold=1).utcoffset() - oracle.replace(fold=0).utcoffset()
    expected = wall if exists else wall + gap
    resolved = tz.resolve_imaginary(wall.replace(tzinfo=tz.gettz(key)))
    assert resolved.replace(tzinfo=None, fold=0) == expected.replace(fold=0), wall


@settings(max_examples=200)
@given(moment=...)
def test_lord_howe_wall_time_april(moment: datetime.datetime):
    prop_lord_howe_wall_time_april(moment)


@settings(max_examples=200)
@given(moment=...)
def test_lord_howe_wall_time_october(moment: datetime.datetime):
    prop_lord_howe_wall_time_october(moment)


@settings(max_examples=200)
@given(moment=...)
def test_sydney_instant(moment: datetime.datetime):
    prop_sydney_instant(moment)


@settings(max_examples=200)
@given(moment=...)
def test_lord_howe_resolve_imaginary(moment: datetime.datetime):
    prop_lord_howe_resolve_imaginary(moment)
