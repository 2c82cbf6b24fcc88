from boltons.cacheutils import LRI


def test_popitem_removes_the_last_inserted_key():
    cache = LRI()
    cache["a"], cache["b"] = 1, 2
    assert cache.popitem() == ("b", 2) and dict(cache) == {"a": 1}
