"""Property-based tests for python-dateutil 4.0.0 (dateutil-tzical)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug. The oracle is the IANA tz database (zoneinfo), whose
America/New_York follows the VTIMEZONE's rules from 2007 on."""
import datetime
import io
from zoneinfo import ZoneInfo

from hypothesis import assume

from dateutil import tz

VTIMEZONE = """BEGIN:VTIMEZONE
TZID:America/New_York
BEGIN:DAYLIGHT
DTSTART:20070311T020000
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU
TZOFFSETFROM:-0500
TZOFFSETTO:-0400
TZNAME:EDT
END:DAYLIGHT
BEGIN:STANDARD
DTSTART:20071104T020000
RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU
TZOFFSETFROM:-0400
TZOFFSETTO:-0500
TZNAME:EST
END:STANDARD
END:VTIMEZONE
"""
_NEW_YORK = ZoneInfo("America/New_York")
_UTC = datetime.timezone.utc


def _in_years(moment: datetime.datetime, first: int, count: int) -> datetime.datetime:
    """`moment` moved into first..first+count-1 (any datetime; 29 February only into leap years)."""
    year = first + (moment.year - first) % count
    assume(not (moment.month == 2 and moment.day == 29) or year % 4 == 0)
    return moment.replace(year=year)


def _tz_database_round_trip(wall: datetime.datetime) -> datetime.datetime:
    """The wall time New York's clocks show at the instant `wall` (fold as given) denotes."""
    return wall.replace(tzinfo=_NEW_YORK).astimezone(_UTC).astimezone(_NEW_YORK).replace(tzinfo=None)


def prop_ical_wall_time_offset(moment: datetime.datetime, fold: bool) -> None:
    """An existing wall-clock time, with either fold, has the tz database's UTC offset and name."""
    wall = _in_years(moment, 2008, 92).replace(fold=int(fold))
    assume(_tz_database_round_trip(wall) == wall.replace(fold=0))  # not in the skipped spring hour
    ical = tz.tzical(io.StringIO(VTIMEZONE)).get()
    ours, theirs = wall.replace(tzinfo=ical), wall.replace(tzinfo=_NEW_YORK)
    assert (ours.utcoffset(), ours.tzname()) == (theirs.utcoffset(), theirs.tzname()), wall


def prop_resolve_imaginary_moves_forward(moment: datetime.datetime) -> None:
    """resolve_imaginary leaves an existing time alone and moves a time in the spring gap forward by
    the gap, to the wall time the clocks show at that instant."""
    wall = _in_years(moment, 2007, 31)
    resolved = tz.resolve_imaginary(wall.replace(tzinfo=tz.gettz("America/New_York")))
    assert resolved.replace(tzinfo=None) == _tz_database_round_trip(wall), wall


def prop_ical_utc_to_local(moment: datetime.datetime) -> None:
    """An instant (read as UTC) converts to the tz database's wall-clock time and fold."""
    instant = _in_years(moment, 2008, 92).replace(tzinfo=_UTC)
    ours = instant.astimezone(tz.tzical(io.StringIO(VTIMEZONE)).get())
    theirs = instant.astimezone(_NEW_YORK)
    assert (ours.replace(tzinfo=None), ours.fold) == (theirs.replace(tzinfo=None), theirs.fold), instant


def prop_ambiguity_matches_tz_database(moment: datetime.datetime) -> None:
    """datetime_ambiguous(wall, gettz(...)) holds exactly for the wall times New York's clocks show twice."""
    wall = _in_years(moment, 2007, 31)
    twice = wall.replace(fold=0, tzinfo=_NEW_YORK).utcoffset() != wall.replace(fold=1, tzinfo=_NEW_YORK).utcoffset()
    shown = _tz_database_round_trip(wall.replace(fold=0)) == wall.replace(fold=0)
    assert tz.datetime_ambiguous(wall, tz.gettz("America/New_York")) == (twice and shown), wall


def prop_rule_years_utc_to_local(moment: datetime.datetime) -> None:
    """After 2037, an instant (read as UTC) converts under gettz(...) to the tz database's wall time and fold."""
    instant = _in_years(moment, 2038, 162).replace(tzinfo=_UTC)
    ours, theirs = instant.astimezone(tz.gettz("America/New_York")), instant.astimezone(_NEW_YORK)
    assert (ours.replace(tzinfo=None), ours.fold) == (theirs.replace(tzinfo=None), theirs.fold), instant


def prop_recorded_years_utc_to_local(moment: datetime.datetime) -> None:
    """Up to 2037 (the zone file's explicit transitions), an instant (read as UTC) converts under
    gettz(...) to the tz database's wall time and fold."""
    instant = _in_years(moment, 2007, 31).replace(tzinfo=_UTC)
    ours, theirs = instant.astimezone(tz.gettz("America/New_York")), instant.astimezone(_NEW_YORK)
    assert (ours.replace(tzinfo=None), ours.fold) == (theirs.replace(tzinfo=None), theirs.fold), instant


def prop_recorded_years_wall_offset(moment: datetime.datetime, fold: bool) -> None:
    """Up to 2037, an existing wall time with either fold has the tz database's offset and name under gettz(...)."""
    wall = _in_years(moment, 2007, 31).replace(fold=int(fold))
    assume(_tz_database_round_trip(wall) == wall.replace(fold=0))  # not in the skipped spring hour
    ours, theirs = wall.replace(tzinfo=tz.gettz("America/New_York")), wall.replace(tzinfo=_NEW_YORK)
    assert (ours.utcoffset(), ours.tzname()) == (theirs.utcoffset(), theirs.tzname()), wall


@settings(max_examples=200)
@given(moment=..., fold=...)
def test_ical_wall_time_offset(moment: datetime.datetime, fold: bool):
    prop_ical_wall_time_offset(moment, fold)


@settings(max_examples=200)
@given(moment=...)
def test_resolve_imaginary_moves_forward(moment: datetime.datetime):
    prop_resolve_imaginary_moves_forward(moment)


@settings(max_examples=200)
@given(moment=...)
def test_ambiguity_matches_tz_database(moment: datetime.datetime):
    prop_ambiguity_matches_tz_database(moment)


@settings(max_examples=200)
@given(moment=...)
def test_rule_years_utc_to_local(moment: datetime.datetime):
    prop_rule_years_utc_to_local(moment)


@settings(max_examples=200)
@given(moment=...)
def test_recorded_years_utc_to_local(moment: datetime.datetime):
    prop_recorded_years_utc_to_local(moment)


@settings(max_examples=200)
@given(moment=..., fold=...)
def test_recorded_years_wall_offset(moment: datetime.datetime, fold: bool):
    prop_recorded_years_wall_offset(moment, fold)
