from hypothesis import strategies as st

STRATEGIES = {
    "prop_writeback_deletes": dict(size=st.integers(5, 8), ops=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 4), st.integers(0, 9)), min_size=5, max_size=30)),
    "prop_writeback_ejections": dict(size=st.integers(1, 3), preload=st.dictionaries(st.integers(0, 9), st.integers(0, 9), max_size=3),
                                     ops=st.lists(st.tuples(st.sampled_from([0, 0, 1, 3]), st.integers(0, 9), st.integers(10, 99)), min_size=5, max_size=30)),
    "prop_clear_then_refill": dict(size=st.integers(1, 6), before=st.lists(st.integers(0, 20), min_size=6, max_size=20),
                                   after=st.lists(st.integers(0, 20), min_size=1, max_size=10)),
    "prop_writethrough_lookups_follow_store": dict(size=st.integers(2, 8), ops=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 4), st.integers(0, 9)), min_size=5, max_size=30)),
}
