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


@settings(max_examples=200)
@given(calls=...)
def test_ttl_cache_without_expiry_is_lru(calls: list[int]):
    prop_ttl_cache_without_expiry_is_lru(calls)
