from hypothesis import strategies as st


def _fill_renew_twice_overflow():
    """128 new keys, key `early` set again twice (other renewals may come between), then new keys past the size."""
    return st.tuples(st.integers(0, 60), st.lists(st.integers(0, 127), max_size=3), st.integers(70, 160)).map(
        lambda t: list(range(128)) + [t[0]] + t[1] + [t[0]] + [1000 + k for k in range(t[2])])


def _fill_delete_renew_next_overflow():
    """128 new keys, key `k` deleted, the key set after it set again, then new keys past the size."""
    return st.tuples(st.integers(0, 60), st.integers(70, 160)).map(
        lambda t: [(False, k) for k in range(128)] + [(True, t[0]), (False, t[0] + 1)]
        + [(False, 1000 + k) for k in range(t[1])])


STRATEGIES = {
    "prop_lri_holds_the_newest_keys": dict(keys=_fill_renew_twice_overflow()),
    "prop_lri_after_deletions": dict(steps=_fill_delete_renew_next_overflow()),
}
