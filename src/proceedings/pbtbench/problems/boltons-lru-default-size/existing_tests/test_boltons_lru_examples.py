from boltons.cacheutils import LRI, LRU


def test_setting_a_key_again_replaces_its_value():
    cache = LRI(max_size=2)
    cache["a"], cache["b"] = "A", "B"
    cache["a"] = "AA"
    assert cache["a"] == "AA" and sorted(cache) == ["a", "b"]


def test_default_size_caches_hold_what_was_set():
    cache = LRU()
    for key in range(10):
        cache[key] = key * key
    assert cache[3] == 9 and len(cache) == 10 and cache.max_size == 128
