from hypothesis import strategies as st

STRATEGIES = {
    "prop_lri_popitem_then_refill": dict(max_size=st.integers(2, 4),
                                         ops=st.lists(st.tuples(st.booleans(), st.integers(0, 30)), min_size=8, max_size=30)),
    "prop_lru_recency": dict(max_size=st.integers(2, 4),
                             ops=st.lists(st.tuples(st.booleans(), st.integers(0, 5)), min_size=8, max_size=30)),
    "prop_threshold_counter_guarantee": dict(
        threshold_inverse=st.integers(3, 5),
        stream=st.tuples(st.lists(st.integers(10, 99), min_size=6, max_size=12, unique=True),
                         st.lists(st.sampled_from([0, 0, 0, 1, 2, 3]), min_size=10, max_size=30)
                         ).map(lambda parts: parts[0] + parts[1])),
}
