from boltons.cacheutils import LRI, LRU, ThresholdCounter


def test_lri_evicts_oldest_insert():
    cache = LRI(max_size=2)
    cache["a"], cache["b"] = 1, 2
    cache["c"] = 3
    assert "a" not in cache and len(cache) == 2


def test_lru_read_refreshes():
    cache = LRU(max_size=2)
    cache["a"], cache["b"] = 1, 2
    cache["a"]
    cache["c"] = 3
    assert set(cache) == {"a", "c"}


def test_threshold_counter_counts():
    counter = ThresholdCounter(threshold=0.1)
    for key in "aaab":
        counter.add(key)
    assert counter["a"] == 3 and counter.total == 4
