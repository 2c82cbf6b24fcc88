from hypothesis import strategies as st


def _fill_touch_overflow(t):
    """Fill the cache with `size` distinct arguments, call an early one again, add `extra` new
    arguments (past 128, so some are evicted), then call every argument once more."""
    size, touched, extra = t
    touched %= size
    return list(range(size)) + [touched] + list(range(1000, 1000 + extra)) + [touched] + list(range(size))


STRATEGIES = {
    "prop_lru_cache_matches_functools": dict(
        calls=st.tuples(st.integers(100, 128), st.integers(0, 20), st.integers(1, 40)).filter(
            lambda t: t[0] + t[2] > 128).map(_fill_touch_overflow)),
    "prop_fifo_cache_evicts_the_first_inserted": dict(
        calls=st.integers(129, 200).map(lambda n: list(range(n)) + [n - 2, 0])),
}
