import datetime

from hypothesis import strategies as st


def _november_changeover(year: int) -> datetime.date:
    first = datetime.date(year, 11, 1)
    return first + datetime.timedelta(days=6 - first.weekday())  # the first Sunday of November


def _on_changeover(clock_times):
    return st.builds(lambda y, t: datetime.datetime.combine(_november_changeover(y), t), st.integers(2007, 2099), clock_times)


_years = st.integers(2007, 2099)

STRATEGIES = {
    # wall times at and around the start of the repeated hour (01:00:00)
    "prop_is_ambiguous_matches_tzdata": dict(moment=_on_changeover(st.builds(
        lambda s, fold: (datetime.datetime(2000, 1, 1, 1) + datetime.timedelta(seconds=s)).time().replace(fold=fold),
        st.integers(-2, 2), st.sampled_from([0, 1])))),
    # wall times inside the repeated hour, either fold
    "prop_wall_time_offset": dict(moment=_on_changeover(st.builds(
        lambda m, s, fold: datetime.time(1, m, s, fold=fold), st.integers(5, 55), st.integers(0, 59), st.sampled_from([0, 1])))),
    # UTC instants in the hour before daylight time ends (05:00-05:59 UTC: the first 01:xx in New York)
    "prop_utc_to_local_fold": dict(moment=_on_changeover(st.builds(datetime.time, st.just(5), st.integers(0, 59)))),
    # the UTC instant daylight time ends (06:00:00 UTC), and its neighbours
    "prop_utc_to_local_wall_clock": dict(moment=_on_changeover(st.builds(
        lambda s: (datetime.datetime(2000, 1, 1, 6) + datetime.timedelta(seconds=s)).time(), st.integers(-1, 1)))),
}
