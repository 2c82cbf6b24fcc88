import datetime

from hypothesis import strategies as st

def _last_sunday(month: int):
    return st.integers(1996, 2099).map(
        lambda y: datetime.datetime(y, month, 31) - datetime.timedelta(days=(datetime.date(y, month, 31).weekday() + 1) % 7))


def _on_last_sunday(month: int, first_second: int, last_second: int):
    return st.tuples(_last_sunday(month), st.integers(first_second, last_second)).map(
        lambda t: t[0] + datetime.timedelta(seconds=t[1]))


STRATEGIES = {
    "prop_offset_after_summer_time": dict(moment=_on_last_sunday(10, 3 * 3600, 4 * 3600 - 1)),
    "prop_instant_before_summer_time_ends": dict(moment=_on_last_sunday(10, 0, 3600 - 1)),  # UTC
    "prop_instant_before_summer_time_starts": dict(moment=_on_last_sunday(3, 0, 3600 - 1)),  # UTC
}
