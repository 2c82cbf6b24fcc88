from hypothesis import strategies as st

STRATEGIES = {
    "prop_priority_changes_keep_pop_order": dict(
        items=st.lists(st.tuples(st.integers(0, 9), st.integers(0, 50)), min_size=6, max_size=12),
        changes=st.lists(st.tuples(st.integers(0, 9), st.integers(0, 100)), min_size=1, max_size=4)),
}
