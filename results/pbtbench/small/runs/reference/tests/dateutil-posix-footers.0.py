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


import datetime

from hypothesis import strategies as st


def _sunday(year: int, month: int, week: int) -> datetime.date:
    """The `week`-th Sunday of the month (5: the last)."""
    first = datetime.date(year, month, 1)
    day = first + datetime.timedelta(days=(6 - first.weekday()) % 7 + 7 * (week - 1))
    return day if day.month == month else day - datetime.timedelta(days=7)


def _around(years, month: int, week: int, first_second: int, last_second: int, folds=(0, 1)):
    """Wall times (or UTC instants) from `first_second` to `last_second` after midnight of the rule's Sunday."""
    return st.builds(
        lambda y, s, fold: (datetime.datetime.combine(_sunday(y, month, week), datetime.time())
                            + datetime.timedelta(seconds=s)).replace(fold=fold),
        years, st.integers(first_second, last_second), st.sampled_from(folds))


_RULE_YEARS = st.integers(2038, 2099)

STRATEGIES = {
    "prop_dublin_wall_time": dict(moment=st.one_of(_around(_RULE_YEARS, 3, 5, 3600, 7199),
                                                   _around(_RULE_YEARS, 10, 5, 3600, 7199))),
    "prop_dublin_instant": dict(moment=_around(_RULE_YEARS, 10, 5, 3600, 7199, folds=(0,))),  # UTC
    # UTC instants of 02:00-02:30 Lord Howe standard time (UTC+10:30) on the first Sunday of April
    "prop_lord_howe_instant": dict(moment=_around(_RULE_YEARS, 4, 1, -30600, -28801, folds=(0,))),
    "prop_nuuk_wall_time": dict(moment=_around(_RULE_YEARS, 3, 5, -3600, 3599)),
    "prop_chatham_wall_time": dict(moment=st.one_of(_around(_RULE_YEARS, 9, 5, 2 * 3600, 2 * 3600 + 2699),
                                                    _around(_RULE_YEARS, 4, 1, 2 * 3600, 3 * 3600 + 2699))),
    "prop_sydney_wall_time": dict(moment=st.builds(
        lambda d, s, fold: (datetime.datetime(2300, 4, 1) + datetime.timedelta(days=d, seconds=s)).replace(fold=fold),
        st.integers(0, 6), st.integers(0, 86399), st.sampled_from([0, 1]))),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_dublin_wall_time'])
def test_dublin_wall_time(moment):
    prop_dublin_wall_time(moment)


@settings(max_examples=200)
@given(**STRATEGIES['prop_dublin_instant'])
def test_dublin_instant(moment):
    prop_dublin_instant(moment)


@settings(max_examples=200)
@given(**STRATEGIES['prop_nuuk_wall_time'])
def test_nuuk_wall_time(moment):
    prop_nuuk_wall_time(moment)


@settings(max_examples=200)
@given(**STRATEGIES['prop_chatham_wall_time'])
def test_chatham_wall_time(moment):
    prop_chatham_wall_time(moment)


@settings(max_examples=200)
@given(**STRATEGIES['prop_sydney_wall_time'])
def test_sydney_wall_time(moment):
    prop_sydney_wall_time(moment)


@settings(max_examples=200)
@given(**STRATEGIES['prop_lord_howe_instant'])
def test_lord_howe_instant(moment):
    prop_lord_howe_instant(moment)
