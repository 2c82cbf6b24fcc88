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
