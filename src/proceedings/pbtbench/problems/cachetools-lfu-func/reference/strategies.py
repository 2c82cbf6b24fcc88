from hypothesis import strategies as st

STRATEGIES = {
    "prop_lfu_cache_evicts_a_least_used_result": dict(
        calls=st.tuples(st.integers(0, 100), st.integers(1, 5), st.integers(1, 40)).map(
            lambda t: list(range(128)) + [t[0]] * t[1] + list(range(1000, 1000 + t[2])) + [t[0]])),
}
