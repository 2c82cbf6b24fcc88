import datetime

from hypothesis import strategies as st


def _first_sunday(year: int, month: int) -> datetime.date:
    first = datetime.date(year, month, 1)
    return first + datetime.timedelta(days=(6 - first.weekday()) % 7)


def _around(month: int, first_second: int, last_second: int, folds=(0, 1)):
    """Wall times (or UTC instants) from `first_second` to `last_second` after midnight of the month's first Sunday."""
    return st.builds(
        lambda y, s, fold: (datetime.datetime.combine(_first_sunday(y, month), datetime.time())
                            + datetime.timedelta(seconds=s)).replace(fold=fold),
        st.integers(2038, 2099), st.integers(first_second, last_second), st.sampled_from(folds))


STRATEGIES = {
    # 00:30-02:30 around the end of summer time, either fold
    "prop_lord_howe_wall_time_april": dict(moment=_around(4, 1800, 9000)),
    # 01:30-03:30 around the start of summer time, either fold
    "prop_lord_howe_wall_time_october": dict(moment=_around(10, 5400, 12600)),
    # the skipped half hour (02:00-02:30), with the default fold
    "prop_lord_howe_resolve_imaginary": dict(moment=_around(10, 7200, 8999, folds=(0,))),
    # UTC instants from 15:00 to 16:00 the day before (01:00-02:00 AEST on the Sunday)
    "prop_sydney_instant": dict(moment=_around(10, -9 * 3600, -8 * 3600 - 1, folds=(0,))),
}
