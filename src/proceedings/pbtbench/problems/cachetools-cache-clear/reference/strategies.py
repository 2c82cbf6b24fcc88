from hypothesis import strategies as st


def _use_clear_refill(t):
    """Some calls, cache_clear(), then enough new arguments to fill the 128 places and evict."""
    before, after = t
    return ([(False, k) for k in range(before)] + [(True, 0)]
            + [(False, 1000 + k) for k in range(after)] + [(False, 1000)])


_STEPS = st.tuples(st.integers(1, 60), st.integers(129, 160)).map(_use_clear_refill)

def _clear_reuse_overflow(t):
    """Calls, cache_clear(), some cleared arguments called once more, then new arguments called twice
    each until the 128 places are full and results are evicted."""
    before, reused = t
    new = [step for k in range(140) for step in ((False, 1000 + k), (False, 1000 + k))]
    return [(False, k) for k in range(before)] + [(True, 0)] + [(False, k) for k in range(reused)] + new


STRATEGIES = {
    "prop_lru_cache_clear_matches_functools": dict(steps=_STEPS),
    "prop_rr_cache_clear_starts_afresh": dict(steps=_STEPS),
    "prop_lfu_cache_clear_starts_afresh": dict(
        steps=st.integers(10, 60).flatmap(lambda n: st.tuples(st.just(n), st.integers(1, n))).map(_clear_reuse_overflow)),
}
