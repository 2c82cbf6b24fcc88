"""Reference properties (hidden): one per bug. The oracle is the IANA tz database (zoneinfo) for
America/New_York: its 1987-2006 rules are tzrange's defaults, and the sandbox's local zone (TZ) is it."""
import datetime
from zoneinfo import ZoneInfo

from hypothesis import assume

from dateutil import tz

_NEW_YORK = ZoneInfo("America/New_York")
_UTC = datetime.timezone.utc


def _existing_wall(moment: datetime.datetime, first: int, count: int, fold: bool) -> datetime.datetime:
    """`moment` moved into first..first+count-1 with the given fold; New York's clocks show it."""
    year = first + (moment.year - first) % count
    assume(not (moment.month == 2 and moment.day == 29) or year % 4 == 0)
    wall = moment.replace(year=year, fold=int(fold))
    back = wall.replace(tzinfo=_NEW_YORK).astimezone(_UTC).astimezone(_NEW_YORK)
    assume(back.replace(tzinfo=None) == wall.replace(fold=0))  # not in the skipped spring hour
    return wall


def _agrees(wall: datetime.datetime, zone: datetime.tzinfo) -> None:
    ours, theirs = wall.replace(tzinfo=zone), wall.replace(tzinfo=_NEW_YORK)
    assert (ours.utcoffset(), ours.tzname()) == (theirs.utcoffset(), theirs.tzname()), wall


def prop_default_range_matches_1987_rules(moment: datetime.datetime, fold: bool) -> None:
    """tzrange("EST", -18000, "EDT") keeps New York's 1987-2006 rules for every wall time, either fold."""
    _agrees(_existing_wall(moment, 1987, 20, fold), tz.tzrange("EST", -18000, "EDT"))


def prop_local_zone_matches_tz_database(moment: datetime.datetime, fold: bool) -> None:
    """tzlocal() (TZ=America/New_York) agrees with the tz database for every wall time, either fold."""
    _agrees(_existing_wall(moment, 2007, 93, fold), tz.tzlocal())


def prop_local_second_occurrence(moment: datetime.datetime, fold: bool) -> None:
    """tzlocal() gives the tz database's offset for every wall time, the second occurrence (fold=1) of a
    repeated time included."""
    _agrees(_existing_wall(moment, 2007, 93, fold), tz.tzlocal())
