"""Property-based tests for boltons 26.2.0 (boltons-lru-recency)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug.

Both caches run at their documented default size, 128 keys, against a list of the keys they should
hold, least recently renewed first: a set renews a key in both, a successful read only in the LRU.
"""
from boltons.cacheutils import LRI, LRU

DEFAULT_MAX_SIZE = 128  # boltons.cacheutils.DEFAULT_MAX_SIZE


def _replay(cache, reads_renew: bool, steps: list[tuple[bool, int]]) -> None:
    """Apply (is_read, key) steps to `cache` and to the model; after each, both hold the same keys."""
    held: list[int] = []
    for is_read, key in steps:
        if is_read:
            assert cache.get(key) == (key if key in held else None)
            if reads_renew and key in held:
                held.remove(key)
                held.append(key)
        else:
            cache[key] = key
            if key in held:
                held.remove(key)
            held.append(key)
            del held[:-DEFAULT_MAX_SIZE]
        assert sorted(cache) == sorted(held)


def prop_lri_set_renews_the_key(steps: list[tuple[bool, int]]) -> None:
    """Setting a key that is already in an LRI makes it the newest, so a full cache evicts others first."""
    _replay(LRI(), False, steps)


def prop_lru_read_renews_the_key(steps: list[tuple[bool, int]]) -> None:
    """Reading a key of an LRU makes it the most recently used, so a full cache evicts others first."""
    _replay(LRU(), True, steps)


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


@settings(max_examples=200)
@given(**STRATEGIES['prop_lri_set_renews_the_key'])
def test_lri_set_renews_the_key(steps):
    prop_lri_set_renews_the_key(steps)


@settings(max_examples=200)
@given(**STRATEGIES['prop_lru_read_renews_the_key'])
def test_lru_read_renews_the_key(steps):
    prop_lru_read_renews_the_key(steps)
