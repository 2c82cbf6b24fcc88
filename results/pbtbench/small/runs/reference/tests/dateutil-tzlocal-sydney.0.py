"""Property-based tests for python-dateutil 4.0.0 (dateutil-tzlocal-sydney)."""
from hypothesis import given, settings


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


import datetime

from hypothesis import strategies as st


def _first_sunday_of_april(year: int) -> datetime.date:
    first = datetime.date(year, 4, 1)
    return first + datetime.timedelta(days=(6 - first.weekday()) % 7)


STRATEGIES = {
    # 01:30-03:30 on the Sunday summer time ends, either fold
    "prop_local_wall_time": dict(moment=st.builds(
        lambda y, s, fold: (datetime.datetime.combine(_first_sunday_of_april(y), datetime.time())
                            + datetime.timedelta(seconds=s)).replace(fold=fold),
        st.integers(2008, 2037), st.integers(5400, 12600), st.sampled_from([0, 1]))),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_local_wall_time'])
def test_local_wall_time(moment):
    prop_local_wall_time(moment)
