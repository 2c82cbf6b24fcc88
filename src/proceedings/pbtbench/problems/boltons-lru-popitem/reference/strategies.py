from hypothesis import strategies as st


def _fill_pop_overflow():
    """128 new keys, one or two popitem() calls, then enough new keys to cycle through the whole cache."""
    return st.tuples(st.integers(1, 2), st.integers(130, 200)).map(
        lambda t: [(False, k) for k in range(128)] + [(True, 0)] * t[0] + [(False, 1000 + k) for k in range(t[1])])


STRATEGIES = {
    "prop_lri_after_popitem": dict(steps=_fill_pop_overflow()),
}
