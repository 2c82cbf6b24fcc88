import datetime

from hypothesis import strategies as st


def _sunday(year: int, month: int, week: int) -> datetime.date:
    """The `week`-th Sunday of the month (5: the last)."""
    first = datetime.date(year, month, 1)
    day = first + datetime.timedelta(days=(6 - first.weekday()) % 7 + 7 * (week - 1))
    return day if day.month == month else day - datetime.timedelta(days=7)


def _around(years, month: int, week: int, first_second: int, last_second: int, folds=(0, 1)):
    """Wall times (or UTC instants) from `first_second` to `last_second` after midnight of the rule's Sunday."""
    return st.builds(
        lambda y, s, fold: (datetime.datetime.combine(_sunday(y, month, week), datetime.time())
                            + datetime.timedelta(seconds=s)).replace(fold=fold),
        years, st.integers(first_second, last_second), st.sampled_from(folds))


_RULE_YEARS = st.integers(2038, 2099)

STRATEGIES = {
    "prop_dublin_wall_time": dict(moment=st.one_of(_around(_RULE_YEARS, 3, 5, 3600, 7199),
                                                   _around(_RULE_YEARS, 10, 5, 3600, 7199))),
    "prop_dublin_instant": dict(moment=_around(_RULE_YEARS, 10, 5, 3600, 7199, folds=(0,))),  # UTC
    # UTC instants of 02:00-02:30 Lord Howe standard time (UTC+10:30) on the first Sunday of April
    "prop_lord_howe_instant": dict(moment=_around(_RULE_YEARS, 4, 1, -30600, -28801, folds=(0,))),
    "prop_nuuk_wall_time": dict(moment=_around(_RULE_YEARS, 3, 5, -3600, 3599)),
    "prop_chatham_wall_time": dict(moment=st.one_of(_around(_RULE_YEARS, 9, 5, 2 * 3600, 2 * 3600 + 2699),
                                                    _around(_RULE_YEARS, 4, 1, 2 * 3600, 3 * 3600 + 2699))),
    "prop_sydney_wall_time": dict(moment=st.builds(
        lambda d, s, fold: (datetime.datetime(2300, 4, 1) + datetime.timedelta(days=d, seconds=s)).replace(fold=fold),
        st.integers(0, 6), st.integers(0, 86399), st.sampled_from([0, 1]))),
}
