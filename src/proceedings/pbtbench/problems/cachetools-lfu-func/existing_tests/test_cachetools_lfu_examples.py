import cachetools.func


def test_hits_and_misses():
    @cachetools.func.lfu_cache()
    def square(x):
        return x * x

    assert [square(3), square(3), square(4)] == [9, 9, 16]
    assert tuple(square.cache_info()) == (1, 2, 128, 2)
    assert sorted(key[0] for key in square.cache) == [3, 4]
