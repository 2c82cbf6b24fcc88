from hypothesis import strategies as st

_unique_items = st.lists(st.tuples(st.integers(0, 60), st.integers(100, 1000)), min_size=20, max_size=60, unique_by=lambda kv: kv[0])

STRATEGIES = {
    "prop_updates_keep_priority_order": dict(items=_unique_items, updates=st.lists(st.tuples(st.integers(0, 60), st.integers(0, 50)), min_size=20, max_size=40)),
    "prop_removals_keep_priority_order": dict(items=_unique_items, removed=st.lists(st.integers(0, 60), min_size=5, max_size=30)),
    "prop_nsmallest_matches_sorted": dict(n=st.integers(1, 3), mapping=st.dictionaries(st.integers(0, 500), st.integers(0, 1000), min_size=5, max_size=30)),
}
