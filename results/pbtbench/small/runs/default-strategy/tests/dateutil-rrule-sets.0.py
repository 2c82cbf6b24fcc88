"""Property-based tests for python-dateutil 4.0.0 (dateutil-rrule-sets)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
import datetime

from dateutil.rrule import DAILY, rrule, rruleset


def _rule(start: datetime.datetime, interval: int, count: int) -> tuple[rrule, list[datetime.datetime]]:
    """A daily rule folded into a safe range (any inputs), and its occurrences computed by hand."""
    # rrule keeps whole seconds; the last occurrence stays below year 9999
    start = min(start, datetime.datetime(9000, 1, 1)).replace(microsecond=0)
    interval, count = 1 + (abs(interval) - 1) % 30, 1 + (abs(count) - 1) % 50  # 1..30 and 1..50 unchanged
    days = [start + datetime.timedelta(days=interval * k) for k in range(count)]
    return rrule(DAILY, dtstart=start, interval=interval, count=count), days


def prop_exdate_after_query(start: datetime.datetime, interval: int, count: int,
                            exdates: list[datetime.datetime]) -> None:
    """With cache=True, an exdate added after the set was iterated still removes its occurrence."""
    rule, days = _rule(start, interval, count)
    rs = rruleset(cache=True)
    rs.rrule(rule)
    assert list(rs) == days
    for dt in exdates:
        rs.exdate(dt)
    assert list(rs) == [d for d in days if d not in set(exdates)]


def prop_between_bounds(start: datetime.datetime, interval: int, count: int, after: datetime.datetime,
                        before: datetime.datetime, inc: bool) -> None:
    """between(a, b) yields the occurrences strictly between a and b, or with inc=True those in [a, b]."""
    rule, days = _rule(start, interval, count)
    inside = (lambda d: after <= d <= before) if inc else (lambda d: after < d < before)
    assert rule.between(after, before, inc=inc) == [d for d in days if inside(d)]


@settings(max_examples=200)
@given(start=..., interval=..., count=..., after=..., before=..., inc=...)
def test_between_bounds(start: datetime.datetime, interval: int, count: int, after: datetime.datetime, before: datetime.datetime, inc: bool):
    prop_between_bounds(start, interval, count, after, before, inc)
