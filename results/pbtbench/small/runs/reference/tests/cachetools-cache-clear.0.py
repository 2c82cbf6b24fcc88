"""Property-based tests for cachetools 8.0.2 (cachetools-cache-clear)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug.

The decorators run at their default size, 128 results, and `cache_clear()` is called between calls;
least-recently-used is checked against functools.lru_cache(maxsize=128), random replacement (with a
deterministic `choice=min`) against a set of the cached arguments, least-frequently-used against use
counts kept by the property (each eviction must remove a least-used result).
"""
import functools

import cachetools.func

DEFAULT_MAXSIZE = 128  # cachetools.func: maxsize=128, like functools.lru_cache


def _identity(value):
    return value


def prop_lru_cache_clear_matches_functools(steps: list[tuple[bool, int]]) -> None:
    """With cache_clear() between calls, lru_cache() has the hits, misses and size of functools.lru_cache."""
    ours = cachetools.func.lru_cache()(_identity)
    reference = functools.lru_cache(maxsize=DEFAULT_MAXSIZE)(_identity)
    for clear, value in steps:
        if clear:
            ours.cache_clear()
            reference.cache_clear()
        else:
            assert ours(value) == reference(value)
        assert tuple(ours.cache_info()) == tuple(reference.cache_info())


def prop_rr_cache_clear_starts_afresh(steps: list[tuple[bool, int]]) -> None:
    """After cache_clear(), rr_cache(choice=min) behaves like a new cache: a full one discards min(cached)."""
    cached = cachetools.func.rr_cache(choice=min)(_identity)
    held, hits, misses = set(), 0, 0
    for clear, value in steps:
        if clear:
            cached.cache_clear()
            held, hits, misses = set(), 0, 0
            continue
        assert cached(value) == value
        if value in held:
            hits += 1
        else:
            misses += 1
            if len(held) == DEFAULT_MAXSIZE:
                held.remove(min(held))
            held.add(value)
        assert tuple(cached.cache_info()) == (hits, misses, DEFAULT_MAXSIZE, len(held))


def prop_lfu_cache_clear_starts_afresh(steps: list[tuple[bool, int]]) -> None:
    """After cache_clear(), lfu_cache() counts uses afresh: a full cache discards a result used least often."""
    cached = cachetools.func.lfu_cache()(_identity)
    uses: dict[int, int] = {}  # cached argument -> uses since it was stored
    for clear, value in steps:
        if clear:
            cached.cache_clear()
            uses = {}
            continue
        assert cached(value) == value
        held = {key[0] for key in cached.cache}
        discarded = [count for key, count in uses.items() if key not in held]
        assert all(count == min(uses.values()) for count in discarded), (discarded, uses)
        uses = {key: uses.get(key, 0) + (key == value) for key in held}


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


@settings(max_examples=200)
@given(**STRATEGIES['prop_lru_cache_clear_matches_functools'])
def test_lru_cache_clear_matches_functools(steps):
    prop_lru_cache_clear_matches_functools(steps)


@settings(max_examples=200)
@given(**STRATEGIES['prop_rr_cache_clear_starts_afresh'])
def test_rr_cache_clear_starts_afresh(steps):
    prop_rr_cache_clear_starts_afresh(steps)


@settings(max_examples=200)
@given(**STRATEGIES['prop_lfu_cache_clear_starts_afresh'])
def test_lfu_cache_clear_starts_afresh(steps):
    prop_lfu_cache_clear_starts_afresh(steps)
