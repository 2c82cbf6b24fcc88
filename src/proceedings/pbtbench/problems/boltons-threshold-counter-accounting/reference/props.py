"""Reference property (hidden), one for the bug: the counter's accounting against the number of additions."""
from boltons.cacheutils import ThresholdCounter


def prop_common_and_uncommon_counts_add_up(keys: list[int]) -> None:
    """get_common_count() is the sum of the kept counts and get_uncommon_count() the rest of the total."""
    counter = ThresholdCounter()
    for key in keys:
        counter.add(key)
    assert counter.get_common_count() == sum(counter.values())
    assert counter.get_common_count() + counter.get_uncommon_count() == counter.total == len(keys)
    assert 0 <= counter.get_uncommon_count() <= counter.total
