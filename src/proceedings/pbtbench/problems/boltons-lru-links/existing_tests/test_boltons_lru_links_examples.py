from boltons.cacheutils import LRI


def test_a_key_set_again_is_evicted_last():
    cache = LRI(max_size=3)
    cache["a"], cache["b"], cache["c"] = 1, 2, 3
    cache["a"] = 10
    cache["d"] = 4
    assert sorted(cache) == ["a", "c", "d"] and cache["a"] == 10
