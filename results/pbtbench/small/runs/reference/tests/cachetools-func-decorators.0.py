"""Property-based tests for cachetools 8.0.2 (cachetools-func-decorators)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug.

The decorators are used with their default size, 128 results, as a program would use them; the
least-recently-used one is checked against `functools.lru_cache(maxsize=128)` from the standard
library, the first-in-first-out one against a list of the cached arguments in insertion order.
"""
import functools

import cachetools.func

DEFAULT_MAXSIZE = 128  # cachetools.func: maxsize=128, like functools.lru_cache


def _identity(value):
    return value


def prop_lru_cache_matches_functools(calls: list[int]) -> None:
    """lru_cache() keeps the 128 most recently used results: the same hits and misses as functools.lru_cache."""
    ours = cachetools.func.lru_cache()(_identity)
    reference = functools.lru_cache(maxsize=DEFAULT_MAXSIZE)(_identity)
    for value in calls:
        assert ours(value) == reference(value)
        assert tuple(ours.cache_info()) == tuple(reference.cache_info())


def prop_fifo_cache_evicts_the_first_inserted(calls: list[int]) -> None:
    """fifo_cache() keeps the 128 results inserted last: a full cache discards the one inserted first."""
    cached = cachetools.func.fifo_cache()(_identity)
    inserted, hits, misses = [], 0, 0  # the cached arguments, first inserted first
    for value in calls:
        assert cached(value) == value
        if value in inserted:
            hits += 1
        else:
            misses += 1
            inserted.append(value)
            if len(inserted) > DEFAULT_MAXSIZE:
                inserted.pop(0)
        assert tuple(cached.cache_info()) == (hits, misses, DEFAULT_MAXSIZE, len(inserted))


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


@settings(max_examples=200)
@given(**STRATEGIES['prop_lru_cache_matches_functools'])
def test_lru_cache_matches_functools(calls):
    prop_lru_cache_matches_functools(calls)


@settings(max_examples=200)
@given(**STRATEGIES['prop_fifo_cache_evicts_the_first_inserted'])
def test_fifo_cache_evicts_the_first_inserted(calls):
    prop_fifo_cache_evicts_the_first_inserted(calls)
