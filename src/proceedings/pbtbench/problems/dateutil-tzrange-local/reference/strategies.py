import datetime

from hypothesis import strategies as st


def _sunday(year: int, month: int, day: int, step: int) -> datetime.datetime:
    """The Sunday on or after (step 1) or on or before (step -1) year-month-day."""
    date = datetime.datetime(year, month, day)
    while date.weekday() != 6:
        date += datetime.timedelta(days=step)
    return date


def _hours_of(days, first_second: int, last_second: int):
    return st.tuples(days, st.integers(first_second, last_second)).map(lambda t: t[0] + datetime.timedelta(seconds=t[1]))


STRATEGIES = {
    "prop_default_range_matches_1987_rules": dict(
        moment=_hours_of(st.integers(1987, 2006).map(lambda y: _sunday(y, 10, 31, -1)), 3600, 3 * 3600 - 1),
        fold=st.booleans()),
    "prop_local_zone_matches_tz_database": dict(
        moment=_hours_of(st.integers(2007, 2099).map(lambda y: _sunday(y, 11, 1, 1)), 3600, 2 * 3600 - 1),
        fold=st.just(False)),
    "prop_local_second_occurrence": dict(
        moment=_hours_of(st.integers(2007, 2099).map(lambda y: _sunday(y, 11, 1, 1)), 3600, 2 * 3600 - 1),
        fold=st.just(True)),
}
