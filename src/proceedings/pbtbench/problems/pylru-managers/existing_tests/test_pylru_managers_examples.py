import pylru


def test_write_through_writes_immediately():
    store = {}
    cached = pylru.lruwrap(store, 2)
    cached["a"] = 1
    assert store == {"a": 1} and cached["a"] == 1


def test_write_back_defers_until_sync():
    store = {}
    cached = pylru.lruwrap(store, 2, True)
    cached["a"] = 1
    assert store == {} and dict(cached.items()) == {"a": 1}
    cached.sync()
    assert store == {"a": 1}


def test_clear_empties_the_cache():
    cache = pylru.lrucache(3)
    cache["a"] = 1
    cache.clear()
    assert len(cache) == 0 and cache.size() == 3
