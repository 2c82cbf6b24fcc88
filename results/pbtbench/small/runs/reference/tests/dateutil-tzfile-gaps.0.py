"""Property-based tests for python-dateutil 4.0.0 (dateutil-tzfile-gaps)."""
from hypothesis import given, settings


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


import datetime

from hypothesis import strategies as st


def _first_sunday_of_october(year: int) -> datetime.date:
    first = datetime.date(year, 10, 1)
    return first + datetime.timedelta(days=(6 - first.weekday()) % 7)


STRATEGIES = {
    # 01:30-03:30 on the Sunday summer time starts (2008-2037), either fold
    "prop_sydney_wall_time_recorded_years": dict(moment=st.builds(
        lambda y, s, fold: (datetime.datetime.combine(_first_sunday_of_october(y), datetime.time())
                            + datetime.timedelta(seconds=s)).replace(fold=fold),
        st.integers(2008, 2037), st.integers(5400, 12600), st.sampled_from([0, 1]))),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_sydney_wall_time_recorded_years'])
def test_sydney_wall_time_recorded_years(moment):
    prop_sydney_wall_time_recorded_years(moment)
