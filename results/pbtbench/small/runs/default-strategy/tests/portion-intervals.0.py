"""Property-based tests for portion 2.6.3 (portion-intervals)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
import portion as P


def _interval(parts: list[tuple[int, int, bool, bool]]) -> P.Interval:
    result = P.empty()
    for lower, upper, left_closed, right_closed in parts:
        result = result | P.Interval.from_atomic(P.CLOSED if left_closed else P.OPEN, lower, upper,
                                                  P.CLOSED if right_closed else P.OPEN)
    return result


def _in_parts(parts: list[tuple[int, int, bool, bool]], x: float) -> bool:
    return any((lo < x or (lo == x and lc)) and (x < hi or (x == hi and rc)) for lo, hi, lc, rc in parts)


def _member(interval: P.Interval, x: float) -> bool:
    """Membership computed from the atomic intervals' bounds (not with `in`)."""
    return any((a.lower < x or (a.lower == x and a.left == P.CLOSED)) and
               (x < a.upper or (x == a.upper and a.right == P.CLOSED)) for a in interval)


def _grid(parts: list[tuple[int, int, bool, bool]]) -> list[float]:
    """Every endpoint, a point inside every gap between endpoints, and points outside: membership
    can only change at an endpoint, so these points decide equality of two unions."""
    ends = sorted({v for lo, hi, _, _ in parts for v in (lo, hi)})
    if not ends:
        return []
    middles = [(a + b) / 2 for a, b in zip(ends, ends[1:])]
    return [ends[0] - 1, *ends, *middles, ends[-1] + 1]


def prop_union_is_simplified(parts: list[tuple[int, int, bool, bool]]) -> None:
    """Consecutive atomic intervals never touch, and the union has the right members."""
    interval = _interval(parts)
    atoms = list(interval)
    for a, b in zip(atoms, atoms[1:]):
        assert a.upper < b.lower or (a.upper == b.lower and a.right == P.OPEN and b.left == P.OPEN), (a, b)
    for x in _grid(parts):
        assert _member(interval, x) == _in_parts(parts, x)


def prop_contains_value(parts: list[tuple[int, int, bool, bool]], probes: list[int]) -> None:
    """`x in I` respects open and closed bounds."""
    interval = _interval(parts)
    for x in probes:
        assert (x in interval) == _in_parts(parts, x)


def prop_intersection(a: list[tuple[int, int, bool, bool]], b: list[tuple[int, int, bool, bool]]) -> None:
    """A & B holds exactly the values in both."""
    both = _interval(a) & _interval(b)
    for x in _grid(a + b):
        assert _member(both, x) == (_in_parts(a, x) and _in_parts(b, x)), x


@settings(max_examples=200)
@given(a=..., b=...)
def test_intersection(a: list[tuple[int, int, bool, bool]], b: list[tuple[int, int, bool, bool]]):
    prop_intersection(a, b)
