from hypothesis import strategies as st

STRATEGIES = {
    "prop_growing_keeps_items": dict(size=st.integers(2, 8), ops=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 20), st.integers(0, 12)), min_size=10, max_size=40)),
    "prop_writeback_store_after_sync": dict(size=st.integers(4, 12), ops=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 20), st.integers(0, 12)), min_size=10, max_size=40)),
    "prop_copy_keeps_order": dict(size=st.integers(2, 8), ops=st.lists(st.tuples(st.integers(0, 20), st.integers(0, 9)), min_size=2, max_size=20),
                                  fresh=st.lists(st.integers(100, 200), min_size=1, max_size=10, unique=True)),
}
