from boltons.cacheutils import ThresholdCounter


def test_short_streams_split_into_common_and_uncommon():
    counter = ThresholdCounter()
    counter.update(["a", "b", "a"])
    assert counter.get_common_count() == 3 and counter.get_uncommon_count() == 0 and counter.total == 3
