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
