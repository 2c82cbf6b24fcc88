import cachetools.func


def test_hits_and_misses_are_counted():
    @cachetools.func.lru_cache()
    def square(x):
        return x * x

    assert [square(3), square(3), square(4)] == [9, 9, 16]
    assert tuple(square.cache_info()) == (1, 2, 128, 2)


def test_fifo_cache_keeps_small_sequences():
    @cachetools.func.fifo_cache()
    def double(x):
        return 2 * x

    assert [double(x) for x in (1, 2, 1, 3)] == [2, 4, 2, 6]
    assert tuple(double.cache_info()) == (1, 3, 128, 3)
