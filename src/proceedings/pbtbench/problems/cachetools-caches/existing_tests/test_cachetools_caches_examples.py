import cachetools


def test_lru_evicts_least_recently_used():
    cache = cachetools.LRUCache(maxsize=2)
    cache["a"], cache["b"] = 1, 2
    cache["a"]
    cache["c"] = 3
    assert set(cache) == {"a", "c"}


def test_sized_cache_counts_sizes():
    cache = cachetools.LRUCache(maxsize=10, getsizeof=len)
    cache["x"] = "abc"
    cache["y"] = "de"
    assert cache.currsize == 5


def test_ttl_cache_expires():
    now = [0]
    cache = cachetools.TTLCache(maxsize=10, ttl=10, timer=lambda: now[0])
    cache["k"] = 1
    now[0] = 5
    assert "k" in cache
    now[0] = 20
    assert "k" not in cache
