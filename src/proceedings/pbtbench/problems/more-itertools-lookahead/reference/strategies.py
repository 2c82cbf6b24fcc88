from hypothesis import strategies as st

STRATEGIES = {
    "prop_peekable_slices_like_list": dict(items=st.lists(st.integers(0, 99), min_size=6, max_size=30),
                                           slices=st.lists(st.tuples(st.integers(3, 25), st.integers(0, 3), st.integers(-3, -1)), min_size=1, max_size=4),
                                           consumed=st.integers(0, 2)),
    "prop_seek_returns_item_at_index": dict(items=st.lists(st.integers(0, 99), min_size=3, max_size=20),
                                            ops=st.lists(st.one_of(st.tuples(st.just(False), st.just(0)),
                                                                   st.tuples(st.just(True), st.integers(0, 8))), min_size=4, max_size=20)),
}
