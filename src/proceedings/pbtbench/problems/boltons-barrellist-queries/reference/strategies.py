from hypothesis import strategies as st

_long = st.integers(30000, 31000).map(lambda n: list(range(n)))  # long enough that the insert splits it

STRATEGIES = {
    "prop_index_matches_list": dict(values=_long, insert_at=st.integers(0, 100),
                                    probes=st.lists(st.integers(12000, 29000), min_size=1, max_size=4)),
    "prop_contains_matches_list": dict(values=_long, insert_at=st.integers(0, 100),
                                       probes=st.lists(st.integers(12000, 29000), min_size=1, max_size=4)),
    "prop_setitem_matches_list": dict(values=_long, insert_at=st.integers(0, 100),
                                      updates=st.lists(st.tuples(st.integers(12000, 29000), st.integers(-9, -1)),
                                                       min_size=1, max_size=4)),
    "prop_reverse_in_place": dict(values=_long, insert_at=st.integers(0, 100)),
}
