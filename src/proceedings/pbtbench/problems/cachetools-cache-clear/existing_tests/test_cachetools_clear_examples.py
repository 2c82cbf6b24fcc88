import cachetools.func


def test_clear_resets_the_statistics():
    @cachetools.func.lru_cache()
    def square(x):
        return x * x

    assert [square(3), square(3)] == [9, 9]
    square.cache_clear()
    assert tuple(square.cache_info()) == (0, 0, 128, 0)
    assert square(3) == 9 and tuple(square.cache_info()) == (0, 1, 128, 1)


def test_rr_cache_with_a_deterministic_choice():
    @cachetools.func.rr_cache(choice=min)
    def double(x):
        return 2 * x

    assert [double(1), double(2), double(1)] == [2, 4, 2]
    assert tuple(double.cache_info()) == (1, 2, 128, 2)
