"""Property-based tests for python-dateutil 4.0.0 (dateutil-tzfile)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug. The oracle is CPython's zoneinfo reading the same
tz database file (America/New_York: explicit transitions up to 2037, then its POSIX TZ rule)."""
import datetime
from zoneinfo import ZoneInfo

from hypothesis import assume

from dateutil import tz

_OURS = tz.gettz("America/New_York")
_THEIRS = ZoneInfo("America/New_York")
_UTC = datetime.timezone.utc


def _in_years(moment: datetime.datetime, first: int, count: int) -> datetime.datetime:
    """`moment` moved into the years first..first+count-1 (29 February only into leap years)."""
    year = first + (moment.year - first) % count
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    assume(leap or not (moment.month == 2 and moment.day == 29))
    return moment.replace(year=year)


def prop_wall_offset_recorded_years(moment: datetime.datetime) -> None:
    """A wall-clock time of 1970-2037 (fold as given) has the tz database's offset and zone name."""
    wall = _in_years(moment, 1970, 68)
    ours, theirs = wall.replace(tzinfo=_OURS), wall.replace(tzinfo=_THEIRS)
    assert (ours.utcoffset(), ours.tzname()) == (theirs.utcoffset(), theirs.tzname()), wall


def prop_utc_to_wall_recorded_years(moment: datetime.datetime) -> None:
    """An instant of 1970-2037 (read as UTC) converts to the tz database's wall-clock time and fold."""
    instant = _in_years(moment, 1970, 68).replace(tzinfo=_UTC)
    ours, theirs = instant.astimezone(_OURS), instant.astimezone(_THEIRS)
    assert (ours.replace(tzinfo=None), ours.fold) == (theirs.replace(tzinfo=None), theirs.fold), instant


def prop_wall_dst_rule_years(moment: datetime.datetime) -> None:
    """A wall-clock time of 2038-2199 (fold as given) has the tz database's daylight-saving offset."""
    wall = _in_years(moment, 2038, 162)
    assert wall.replace(tzinfo=_OURS).dst() == wall.replace(tzinfo=_THEIRS).dst(), wall



def prop_utc_to_wall_rule_years(moment: datetime.datetime) -> None:
    """An instant of 2038-2199 (read as UTC) converts to the wall-clock time New York shows then."""
    instant = _in_years(moment, 2038, 162).replace(tzinfo=_UTC)
    ours, theirs = instant.astimezone(_OURS), instant.astimezone(_THEIRS)
    assert ours.replace(tzinfo=None) == theirs.replace(tzinfo=None), instant


def prop_utc_fold_rule_years(moment: datetime.datetime) -> None:
    """An instant of 2038-2199 (read as UTC) converts with fold=1 exactly on the second occurrence of a wall time."""
    instant = _in_years(moment, 2038, 162).replace(tzinfo=_UTC)
    assert instant.astimezone(_OURS).fold == instant.astimezone(_THEIRS).fold, instant


@settings(max_examples=200)
@given(moment=...)
def test_wall_offset_recorded_years(moment: datetime.datetime):
    prop_wall_offset_recorded_years(moment)


@settings(max_examples=200)
@given(moment=...)
def test_utc_to_wall_recorded_years(moment: datetime.datetime):
    prop_utc_to_wall_recorded_years(moment)


@settings(max_examples=200)
@given(moment=...)
def test_wall_dst_rule_years(moment: datetime.datetime):
    prop_wall_dst_rule_years(moment)


@settings(max_examples=200)
@given(moment=...)
def test_utc_to_wall_rule_years(moment: datetime.datetime):
    prop_utc_to_wall_rule_years(moment)


@settings(max_examples=200)
@given(moment=...)
def test_utc_fold_rule_years(moment: datetime.datetime):
    prop_utc_fold_rule_years(moment)
