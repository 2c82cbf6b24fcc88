from boltons.cacheutils import ThresholdCounter


def test_short_streams_are_counted_exactly():
    counter = ThresholdCounter()
    counter.update(["a", "b", "a", "c", "a"])
    assert counter.most_common(1) == [("a", 3)] and counter.total == 5
    assert counter.get_common_count() == 5 and counter.get_uncommon_count() == 0
