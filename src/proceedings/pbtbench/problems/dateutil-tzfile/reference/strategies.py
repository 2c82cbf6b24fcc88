import datetime

from hypothesis import strategies as st


def _sunday_on_or_after(year: int, month: int, day: int) -> datetime.date:
    first = datetime.date(year, month, day)
    return first + datetime.timedelta(days=6 - first.weekday())


def _around(years, month: int, day: int, hour: int, seconds, folds=st.sampled_from([0, 1])):
    """Datetimes `seconds` away from hour:00 on the first Sunday on or after month/day."""
    return st.builds(lambda y, s, fold: (datetime.datetime.combine(_sunday_on_or_after(y, month, day), datetime.time(hour))
                                         + datetime.timedelta(seconds=s)).replace(fold=fold), years, seconds, folds)


_recorded = st.integers(2007, 2037)
_rule = st.integers(2038, 2199)

STRATEGIES = {
    # wall times at the transitions: 02:00 / 03:00 in March, 01:00 / 02:00 in November
    "prop_wall_offset_recorded_years": dict(moment=st.one_of(_around(_recorded, 3, 8, 3, st.integers(-1, 1)),
                                                             _around(_recorded, 11, 1, 1, st.integers(-1, 1)))),
    # the instant one hour after daylight time ends (07:00 UTC, 02:00 EST), and its neighbours
    "prop_utc_to_wall_recorded_years": dict(moment=_around(_recorded, 11, 1, 7, st.integers(-1, 1), st.just(0))),
    # the first wall time of daylight time (03:00 in March), and its neighbours
    "prop_wall_dst_rule_years": dict(moment=_around(_rule, 3, 8, 3, st.integers(-1, 1), st.just(0))),
    # the instant daylight time ends under the rule (06:00 UTC in November), and its neighbours
    "prop_utc_to_wall_rule_years": dict(moment=_around(_rule, 11, 1, 6, st.integers(-1, 1), st.just(0))),
    "prop_utc_fold_rule_years": dict(moment=_around(_rule, 11, 1, 6, st.integers(-1, 1), st.just(0))),
}
