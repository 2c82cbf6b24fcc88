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
