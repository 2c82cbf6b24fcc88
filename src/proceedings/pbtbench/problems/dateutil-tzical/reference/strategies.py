import datetime

from hypothesis import strategies as st

def _first_sunday_of_november(first: int, last: int):
    return st.integers(first, last).map(
        lambda y: datetime.datetime(y, 11, 1) + datetime.timedelta(days=(6 - datetime.date(y, 11, 1).weekday()) % 7))


_FIRST_SUNDAY_OF_NOVEMBER = _first_sunday_of_november(2008, 2099)
_RECORDED_YEARS_FIRST_SUNDAY_OF_NOVEMBER = _first_sunday_of_november(2008, 2036)  # explicit transitions in the file
_RULE_YEARS_FIRST_SUNDAY_OF_NOVEMBER = _first_sunday_of_november(2038, 2199)
_SECOND_SUNDAY_OF_MARCH = st.integers(2007, 2037).map(
    lambda y: datetime.datetime(y, 3, 8) + datetime.timedelta(days=(6 - datetime.date(y, 3, 8).weekday()) % 7))
_seconds = st.integers(0, 3599)

STRATEGIES = {
    "prop_ical_wall_time_offset": dict(
        moment=st.tuples(_FIRST_SUNDAY_OF_NOVEMBER, st.integers(3600, 3 * 3600 - 1)).map(
            lambda t: t[0] + datetime.timedelta(seconds=t[1])), fold=st.just(True)),
    "prop_resolve_imaginary_moves_forward": dict(
        moment=st.tuples(_SECOND_SUNDAY_OF_MARCH, _seconds).map(
            lambda t: t[0] + datetime.timedelta(hours=2, seconds=t[1]))),
    "prop_ical_utc_to_local": dict(
        moment=st.tuples(_FIRST_SUNDAY_OF_NOVEMBER, _seconds).map(lambda t: t[0] + datetime.timedelta(hours=5, seconds=t[1]))),
    "prop_ambiguity_matches_tz_database": dict(
        moment=st.tuples(_SECOND_SUNDAY_OF_MARCH, _seconds).map(lambda t: t[0] + datetime.timedelta(hours=2, seconds=t[1]))),
    "prop_recorded_years_utc_to_local": dict(
        moment=st.tuples(_RECORDED_YEARS_FIRST_SUNDAY_OF_NOVEMBER, _seconds).map(
            lambda t: t[0] + datetime.timedelta(hours=6, seconds=t[1]))),
    "prop_recorded_years_wall_offset": dict(
        moment=st.tuples(_RECORDED_YEARS_FIRST_SUNDAY_OF_NOVEMBER, _seconds).map(
            lambda t: t[0] + datetime.timedelta(hours=1, seconds=t[1])), fold=st.just(True)),
    "prop_rule_years_utc_to_local": dict(
        moment=st.tuples(_RULE_YEARS_FIRST_SUNDAY_OF_NOVEMBER, st.integers(0, 2 * 3600 - 1)).map(
            lambda t: t[0] + datetime.timedelta(hours=6, seconds=t[1]))),
}
