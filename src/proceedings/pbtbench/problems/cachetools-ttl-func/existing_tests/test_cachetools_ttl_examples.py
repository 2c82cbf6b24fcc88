import cachetools.func


def test_hits_and_expiry():
    now = [0.0]

    @cachetools.func.ttl_cache(ttl=600, timer=lambda: now[0])
    def square(x):
        return x * x

    assert [square(3), square(3)] == [9, 9]
    now[0] = 601.0
    assert square(3) == 9
    assert tuple(square.cache_info())[:2] == (1, 2)
