from hypothesis import strategies as st

STRATEGIES = {
    "prop_discards_keep_counts": dict(ops=st.lists(st.tuples(st.booleans(), st.integers(0, 3), st.integers(1, 3)), min_size=5, max_size=30)),
    "prop_assignments_keep_len": dict(ops=st.lists(st.tuples(st.integers(0, 3), st.integers(-2, 3)), min_size=5, max_size=20)),
}
