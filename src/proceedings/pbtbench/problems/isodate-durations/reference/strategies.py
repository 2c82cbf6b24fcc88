import datetime

from hypothesis import strategies as st

_whole_years = st.sampled_from([-24, -12, 0, 12, 24])  # month counts that a different year count can balance

STRATEGIES = {
    "prop_add_months_clamps_to_month_end": dict(
        start=st.dates(datetime.date(1999, 3, 1), datetime.date(2001, 1, 31)).filter(lambda d: d.day >= 29),
        months=st.integers(-12, 12)),
    "prop_equality_counts_months": dict(years=st.integers(-2, 2), months=_whole_years, other_years=st.integers(-2, 2),
                                        other_months=_whole_years, days=st.integers(0, 5)),
}
