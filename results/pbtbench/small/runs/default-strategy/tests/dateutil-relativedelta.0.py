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


@settings(max_examples=200)
@given(months=...)
def test_months_normalised(months: int):
    prop_months_normalised(months)
