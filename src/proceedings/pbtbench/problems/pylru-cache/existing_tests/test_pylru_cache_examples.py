import pylru


def test_lookup_refreshes_and_insert_ejects_lru():
    cache = pylru.lrucache(2)
    cache["a"], cache["b"] = 1, 2
    cache["a"]
    cache["c"] = 3
    assert list(cache.keys()) == ["c", "a"]


def test_peek_does_not_change_order():
    cache = pylru.lrucache(3)
    cache["a"], cache["b"] = 1, 2
    assert cache.peek("a") == 1 and list(cache) == ["b", "a"]


def test_write_back_sync():
    store = {}
    with pylru.WriteBackCacheManager(store, 2) as cached:
        cached["x"] = 1
        assert store == {}
    assert store == {"x": 1}
