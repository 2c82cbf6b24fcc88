from hypothesis import strategies as st


def _fill_renew_overflow(is_read: bool):
    """128 new keys, then key `early` renewed (by a read or a set), then `extra` new keys (some evicted)."""
    return st.tuples(st.integers(0, 60), st.integers(1, 100)).map(
        lambda t: [(False, k) for k in range(128)] + [(is_read, t[0])] + [(False, 1000 + k) for k in range(t[1])]
        + [(True, t[0])])


STRATEGIES = {
    "prop_lri_set_renews_the_key": dict(steps=_fill_renew_overflow(False)),
    "prop_lru_read_renews_the_key": dict(steps=_fill_renew_overflow(True)),
}
