"""Property-based tests for cachetools 8.0.2 (cachetools-lfu-func)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug.

lfu_cache runs at its default size, 128 results. The property counts, for every cached argument, how
often its result was used (stored once, then once per hit) and checks each eviction against it.
"""
import cachetools.func

DEFAULT_MAXSIZE = 128  # cachetools.func: maxsize=128, like functools.lru_cache


def _identity(value):
    return value


def prop_lfu_cache_evicts_a_least_used_result(calls: list[int]) -> None:
    """When a full lfu_cache() stores a new result, the one it discards was used least often."""
    cached = cachetools.func.lfu_cache()(_identity)
    uses: dict[int, int] = {}  # cached argument -> uses so far
    for value in calls:
        before = dict(uses)
        assert cached(value) == value
        held = {key[0] for key in cached.cache}
        for gone in set(before) - held:
            assert before[gone] == min(before.values()), (gone, before[gone], min(before.values()))
        uses = {key: before.get(key, 0) for key in held}
        uses[value] += 1
        assert len(held) <= DEFAULT_MAXSIZE


@settings(max_examples=200)
@given(calls=...)
def test_lfu_cache_evicts_a_least_used_result(calls: list[int]):
    prop_lfu_cache_evicts_a_least_used_result(calls)
