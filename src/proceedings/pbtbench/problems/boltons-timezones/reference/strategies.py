import datetime

from hypothesis import strategies as st


def _sunday_on_or_after(year: int, month: int, day: int) -> datetime.date:
    first = datetime.date(year, month, day)
    return first + datetime.timedelta(days=6 - first.weekday())


def _wall_times(month: int, day: int, hour: int, folds):
    """Wall-clock times in the hour `hour`:00 of the first Sunday on or after month/day, 2007-2099."""
    return st.builds(lambda y, minute, second, fold: datetime.datetime.combine(
        _sunday_on_or_after(y, month, day), datetime.time(hour, minute, second, fold=fold)),
        st.integers(2007, 2099), st.integers(0, 59), st.integers(0, 59), folds)


def _instants(month: int, day: int, utc_hour: int, minutes):
    """UTC instants from utc_hour:00 on the first Sunday on or after month/day, 2007-2099."""
    return st.builds(lambda y, m: datetime.datetime.combine(_sunday_on_or_after(y, month, day),
                                                            datetime.time(utc_hour)) + datetime.timedelta(minutes=m),
                     st.integers(2007, 2099), minutes)


STRATEGIES = {
    "prop_wall_time_offset": dict(moment=_wall_times(11, 1, 1, st.sampled_from([0, 1]))),
    "prop_wall_time_zone_name": dict(moment=_wall_times(3, 8, 2, st.just(0))),
    "prop_utc_to_eastern_wall_clock": dict(moment=_instants(11, 1, 6, st.integers(0, 59))),
    "prop_utc_to_eastern_zone_name": dict(moment=_instants(3, 8, 7, st.just(0))),
    "prop_daylight_days": dict(day=st.one_of(st.dates(datetime.date(2006, 3, 12), datetime.date(2006, 3, 31)),
                                             st.dates(datetime.date(2006, 10, 29), datetime.date(2006, 11, 4)))),
}
