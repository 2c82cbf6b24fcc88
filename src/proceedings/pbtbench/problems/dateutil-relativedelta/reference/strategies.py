import datetime

from hypothesis import strategies as st

STRATEGIES = {
    "prop_months_normalised": dict(months=st.sampled_from([12, -12, 24, -24, 36])),
    "prop_add_months_clamps_to_month_end": dict(
        start=st.builds(datetime.date, st.integers(1990, 2030), st.sampled_from([1, 3, 5, 8, 10, 12]), st.integers(29, 31)),
        months=st.integers(-13, 13)),
    "prop_backward_weekday": dict(start=st.dates(datetime.date(2000, 1, 1), datetime.date(2030, 1, 1)),
                                  day_index=st.integers(0, 6), n=st.integers(1, 1)),
}
