"""Property-based tests for cachetools 8.0.2 (cachetools-ttl-func)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug.

ttl_cache runs at its default size, 128 results, on a clock that stands still, so no result
expires; it must then keep exactly what an LRU cache of 128 keeps: functools.lru_cache(maxsize=128).
"""
import functools

import cachetools.func


def _identity(value):
    return value


def prop_ttl_cache_without_expiry_is_lru(calls: list[int]) -> None:
    """While nothing expires, ttl_cache() has the hits, misses and size of functools.lru_cache(128)."""
    ours = cachetools.func.ttl_cache(ttl=600, timer=lambda: 0.0)(_identity)
    reference = functools.lru_cache(maxsize=128)(_identity)
    for value in calls:
        assert ours(value) == reference(value)
        assert tuple(ours.cache_info()) == tuple(reference.cache_info())


from hypothesis import strategies as st

STRATEGIES = {
    "prop_ttl_cache_without_expiry_is_lru": dict(
        calls=st.tuples(st.integers(0, 60), st.integers(1, 100)).map(
            lambda t: list(range(128)) + [t[0]] + list(range(1000, 1000 + t[1])) + [t[0]])),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_ttl_cache_without_expiry_is_lru'])
def test_ttl_cache_without_expiry_is_lru(calls):
    prop_ttl_cache_without_expiry_is_lru(calls)
