"""Reference properties (hidden): one per bug. The oracle is CPython's zoneinfo reading the system's tz
database, which shares no code with dateutil; the sandbox's TZ is Australia/Sydney."""
import datetime
from zoneinfo import ZoneInfo

from hypothesis import assume

from dateutil import tz

_SYDNEY = ZoneInfo("Australia/Sydney")
_UTC = datetime.timezone.utc


def prop_local_wall_time(moment: datetime.datetime) -> None:
    """A wall time of 2008-2037 that Sydney's clocks show has the tz database's offset, name and DST amount
    in the local zone (fold as given)."""
    year = 2008 + (moment.year - 2008) % 30
    assume(not (moment.month == 2 and moment.day == 29) or year % 4 == 0)
    wall = moment.replace(year=year)
    theirs = wall.replace(tzinfo=_SYDNEY)
    assume(theirs.astimezone(_UTC).astimezone(_SYDNEY).replace(tzinfo=None) == wall.replace(fold=0))  # shown
    ours = wall.replace(tzinfo=tz.tzlocal())
    assert (ours.utcoffset(), ours.tzname(), ours.dst()) == (theirs.utcoffset(), theirs.tzname(), theirs.dst()), wall
