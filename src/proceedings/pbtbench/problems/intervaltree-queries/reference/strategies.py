from hypothesis import strategies as st

_spans = st.lists(st.tuples(st.integers(0, 30), st.integers(1, 12)), min_size=12, max_size=30)

STRATEGIES = {
    "prop_added_intervals_found": dict(spans=_spans),
    "prop_removed_intervals_gone": dict(spans=st.lists(st.tuples(st.integers(0, 30), st.integers(1, 12)), min_size=20, max_size=30),
                                       removals=st.lists(st.integers(0, 29), min_size=12, max_size=30)),
    "prop_half_open_query": dict(spans=st.lists(st.tuples(st.integers(0, 10), st.integers(1, 4)), min_size=1, max_size=6),
                                 points=st.lists(st.integers(0, 14), min_size=3, max_size=10)),
}
