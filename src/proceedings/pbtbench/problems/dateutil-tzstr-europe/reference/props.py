"""Reference properties (hidden): one per bug. The oracle is the IANA tz database (zoneinfo), whose
Europe/Berlin follows the same rule as the POSIX string from 1996 on."""
import datetime
from zoneinfo import ZoneInfo

from hypothesis import assume

from dateutil import tz

RULE = "CET-1CEST,M3.5.0,M10.5.0/3"
_BERLIN = ZoneInfo("Europe/Berlin")
_UTC = datetime.timezone.utc


def _in_years(moment: datetime.datetime) -> datetime.datetime:
    """`moment` moved into 1996-2099 (29 February only into leap years)."""
    year = 1996 + (moment.year - 1996) % 104
    assume(not (moment.month == 2 and moment.day == 29) or year % 4 == 0)
    return moment.replace(year=year)


def _check_wall_time(moment: datetime.datetime) -> None:
    """`moment`, moved into 1996-2099, has the tz database's UTC offset and name if Berlin's clocks show it."""
    wall = _in_years(moment)
    back = wall.replace(tzinfo=_BERLIN).astimezone(_UTC).astimezone(_BERLIN)
    assume(back.replace(tzinfo=None) == wall.replace(fold=0))  # not in the skipped spring hour
    ours, theirs = wall.replace(tzinfo=tz.tzstr(RULE)), wall.replace(tzinfo=_BERLIN)
    assert (ours.utcoffset(), ours.tzname()) == (theirs.utcoffset(), theirs.tzname()), wall


def prop_offset_after_summer_time(moment: datetime.datetime) -> None:
    """A wall-clock time has the tz database's offset, in particular in the hours after summer time ends."""
    _check_wall_time(moment)



def _check_instant(moment: datetime.datetime) -> None:
    """`moment`, moved into 1996-2099 and read as UTC, converts to the tz database's wall time and fold."""
    instant = _in_years(moment).replace(tzinfo=_UTC)
    ours, theirs = instant.astimezone(tz.tzstr(RULE)), instant.astimezone(_BERLIN)
    assert (ours.replace(tzinfo=None), ours.fold) == (theirs.replace(tzinfo=None), theirs.fold), instant


def prop_instant_before_summer_time_ends(moment: datetime.datetime) -> None:
    """An instant converts to Berlin's wall time, in particular in the hour before summer time ends."""
    _check_instant(moment)


def prop_instant_before_summer_time_starts(moment: datetime.datetime) -> None:
    """An instant converts to Berlin's wall time, in particular in the hour before summer time starts."""
    _check_instant(moment)
