"""Property-based tests for python-dateutil 4.0.0 (dateutil-relativedelta)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
import datetime

from hypothesis import assume
import calendar
from dateutil.relativedelta import relativedelta, weekday


def prop_months_normalised(months: int) -> None:
    """months is normalised into -11..11 with whole years moved into years."""
    assume(not (abs(months) > 10**6))
    delta = relativedelta(months=months)
    assert -11 <= delta.months <= 11
    assert delta.years * 12 + delta.months == months


def prop_add_months_clamps_to_month_end(start: datetime.date, months: int) -> None:
    """Adding months keeps the day, or uses the last day of a shorter target month."""
    assume(-1200 <= months <= 1200)
    total = start.year * 12 + (start.month - 1) + months
    year, month = divmod(total, 12)
    assume(1 <= year <= 9999)
    month += 1
    expected_day = min(start.day, calendar.monthrange(year, month)[1])
    assert start + relativedelta(months=months) == datetime.date(year, month, expected_day)


def prop_backward_weekday(start: datetime.date, day_index: int, n: int) -> None:
    """weekday=XX(-n) moves back to the n-th such weekday on or before the date."""
    assume(not (not 0 <= day_index <= 6 or not 1 <= n <= 5))
    assume(not (start.toordinal() <= 40))
    result = start + relativedelta(weekday=weekday(day_index, -n))
    back = (start.weekday() - day_index) % 7 + 7 * (n - 1)
    assert result == start - datetime.timedelta(days=back)


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


@settings(max_examples=200)
@given(**STRATEGIES['prop_months_normalised'])
def test_months_normalised(months):
    prop_months_normalised(months)
