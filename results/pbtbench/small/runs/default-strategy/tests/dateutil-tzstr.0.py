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


@settings(max_examples=200)
@given(moment=...)
def test_is_ambiguous_matches_tzdata(moment: datetime.datetime):
    prop_is_ambiguous_matches_tzdata(moment)


@settings(max_examples=200)
@given(moment=...)
def test_wall_time_offset(moment: datetime.datetime):
    prop_wall_time_offset(moment)


@settings(max_examples=200)
@given(moment=...)
def test_utc_to_local_fold(moment: datetime.datetime):
    prop_utc_to_local_fold(moment)


@settings(max_examples=200)
@given(moment=...)
def test_utc_to_local_wall_clock(moment: datetime.datetime):
    prop_utc_to_local_wall_clock(moment)
