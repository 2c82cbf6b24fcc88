"""Property-based tests for boltons 26.2.0 (boltons-lru-default-size)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug.

The caches are used at their documented default size, 128 entries, as a program would use them.
"""
from boltons.cacheutils import LRI, LRU

DEFAULT_MAX_SIZE = 128  # boltons.cacheutils.DEFAULT_MAX_SIZE


def prop_lri_keeps_the_most_recently_set(keys: list[int]) -> None:
    """An LRI holds exactly the 128 keys set most recently (setting a key again makes it the newest)."""
    cache, recent = LRI(), []  # recent: the keys the cache should hold, least recently set first
    for key in keys:
        cache[key] = -key
        if key in recent:
            recent.remove(key)
        recent.append(key)
        del recent[:-DEFAULT_MAX_SIZE]
        assert sorted(cache) == sorted(recent)


def prop_lru_reads_back_every_set(keys: list[int]) -> None:
    """Right after cache[key] = value, an LRU gives value back for key, full or not."""
    cache = LRU()
    for index, key in enumerate(keys):
        cache[key] = index
        assert cache[key] == index
        assert cache.get(key) == index


from hypothesis import strategies as st

STRATEGIES = {
    "prop_lri_keeps_the_most_recently_set": dict(keys=st.integers(129, 200).map(lambda n: list(range(n)))),
    "prop_lru_reads_back_every_set": dict(keys=st.integers(129, 200).map(lambda n: list(range(n)))),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_lri_keeps_the_most_recently_set'])
def test_lri_keeps_the_most_recently_set(keys):
    prop_lri_keeps_the_most_recently_set(keys)


@settings(max_examples=200)
@given(**STRATEGIES['prop_lru_reads_back_every_set'])
def test_lru_reads_back_every_set(keys):
    prop_lru_reads_back_every_set(keys)
