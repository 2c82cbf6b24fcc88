from boltons.cacheutils import LRI, LRU


def test_counts_of_hits_and_misses():
    cache = LRU()
    cache["a"] = 1
    assert cache["a"] == 1 and cache.get("b") is None
    assert (cache.hit_count, cache.miss_count, cache.soft_miss_count) == (1, 1, 1)


def test_setting_again_replaces_the_value():
    cache = LRI()
    cache["a"], cache["b"] = 1, 2
    cache["a"] = 3
    assert cache["a"] == 3 and sorted(cache) == ["a", "b"]
