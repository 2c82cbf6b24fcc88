from hypothesis import strategies as st

_long = st.integers(30000, 31000).map(lambda n: list(range(n)))
_descending = st.integers(30000, 31000).map(lambda n: list(range(n, 0, -1)))

STRATEGIES = {
    "prop_indexing_matches_list": dict(values=_long, insert_at=st.integers(0, 100),
                                       probes=st.lists(st.integers(-40000, 40000), max_size=5)),
    "prop_delete_slice": dict(values=_long, insert_at=st.integers(0, 100), start=st.integers(1000, 5000),
                              stop=st.integers(12000, 16000)),
    "prop_reversed": dict(values=_long, insert_at=st.integers(0, 100)),
    "prop_sort": dict(values=_descending, insert_at=st.integers(0, 100)),
}
