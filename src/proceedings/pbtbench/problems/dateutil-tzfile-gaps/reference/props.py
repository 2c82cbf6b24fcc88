"""Reference properties (hidden): one per bug. The oracle is CPython's zoneinfo, which reads the same
tz database file and shares no code with dateutil."""
import datetime
from zoneinfo import ZoneInfo

from hypothesis import assume

from dateutil import tz


def _in_recorded_years(moment: datetime.datetime) -> datetime.datetime:
    """`moment` moved into 1971-2037, the years of the file's explicit transitions (29 February only into leap years)."""
    year = 1971 + (moment.year - 1971) % 67
    assume(not (moment.month == 2 and moment.day == 29) or year % 4 == 0)
    return moment.replace(year=year)


def prop_sydney_wall_time_recorded_years(moment: datetime.datetime) -> None:
    """A Sydney wall time of a recorded year has zoneinfo's offset, name and DST amount (fold as given)."""
    wall = _in_recorded_years(moment)
    ours, theirs = wall.replace(tzinfo=tz.gettz("Australia/Sydney")), wall.replace(tzinfo=ZoneInfo("Australia/Sydney"))
    assert (ours.utcoffset(), ours.tzname(), ours.dst()) == (theirs.utcoffset(), theirs.tzname(), theirs.dst()), wall
