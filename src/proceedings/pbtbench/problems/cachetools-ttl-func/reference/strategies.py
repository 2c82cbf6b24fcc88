from hypothesis import strategies as st

STRATEGIES = {
    "prop_ttl_cache_without_expiry_is_lru": dict(
        calls=st.tuples(st.integers(0, 60), st.integers(1, 100)).map(
            lambda t: list(range(128)) + [t[0]] + list(range(1000, 1000 + t[1])) + [t[0]])),
}
