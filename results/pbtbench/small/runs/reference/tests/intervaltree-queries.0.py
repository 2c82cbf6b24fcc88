"""Property-based tests for intervaltree 3.2.1 (intervaltree-queries)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
from intervaltree import Interval, IntervalTree


def _intervals(spans: list[tuple[int, int]]) -> set[Interval]:
    return {Interval(b, b + length) for b, length in spans if length > 0}


def _points(intervals: set[Interval]) -> list[float]:
    """A point strictly between each two consecutive endpoints: one point of every stretch that the
    same intervals cover, however far apart the endpoints are (endpoints: prop_half_open_query)."""
    ends = sorted({x for iv in intervals for x in (iv.begin, iv.end)})
    return [a + (b - a) / 2 for a, b in zip(ends, ends[1:])]


def prop_added_intervals_found(spans: list[tuple[int, int]]) -> None:
    """After adding intervals one by one, at(p) returns exactly the ones containing p."""
    intervals = _intervals(spans)
    tree = IntervalTree()
    for iv in sorted(intervals):
        tree.add(iv)
    for p in _points(intervals):
        assert tree.at(p) == {iv for iv in intervals if iv.begin <= p < iv.end}, p


def prop_range_overlap(spans: list[tuple[int, int]], queries: list[tuple[int, int]]) -> None:
    """overlap(b, e) returns the intervals meeting [b, e)."""
    intervals = _intervals(spans)
    tree = IntervalTree(intervals)
    for b, length in queries:
        e = b + length
        if length > 0:
            assert tree.overlap(b, e) == {iv for iv in intervals if iv.begin < e and b < iv.end}, (b, e)


def prop_half_open_query(spans: list[tuple[int, int]], points: list[int]) -> None:
    """An interval never contains its end point."""
    intervals = _intervals(spans)
    tree = IntervalTree(intervals)
    for p in points:
        assert tree.at(p) == {iv for iv in intervals if iv.begin <= p < iv.end}, p


from hypothesis import strategies as st

_spans = st.lists(st.tuples(st.integers(0, 30), st.integers(1, 12)), min_size=12, max_size=30)

STRATEGIES = {
    "prop_added_intervals_found": dict(spans=_spans),
    "prop_range_overlap": dict(spans=st.lists(st.integers(0, 5).map(lambda i: (5 * i, 3)), min_size=2, max_size=6, unique=True),
                               queries=st.lists(st.tuples(st.integers(0, 5).map(lambda i: 5 * i + 1), st.integers(1, 6)),
                                                min_size=3, max_size=8)),
    "prop_half_open_query": dict(spans=st.lists(st.integers(0, 5).map(lambda i: (5 * i, 3)), min_size=1, max_size=6, unique=True),
                                 points=st.lists(st.integers(0, 30), min_size=3, max_size=10)),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_half_open_query'])
def test_half_open_query(spans, points):
    prop_half_open_query(spans, points)


@settings(max_examples=200)
@given(**STRATEGIES['prop_range_overlap'])
def test_range_overlap(spans, queries):
    prop_range_overlap(spans, queries)
