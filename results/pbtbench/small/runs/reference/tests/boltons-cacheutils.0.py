"""Property-based tests for boltons 26.2.0 (boltons-cacheutils)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
from collections import Counter, OrderedDict

from boltons.cacheutils import LRI, LRU, ThresholdCounter


def prop_lri_popitem_then_refill(max_size: int, ops: list[tuple[bool, int]]) -> None:
    """After popitem() the cache can be refilled and stays a bounded dict."""
    max_size = 1 + (max_size - 1) % 64  # any integer, folded into 1..64
    cache, model = LRI(max_size), {}
    for is_pop, key in ops:
        if is_pop:
            if cache:
                k, v = cache.popitem()
                assert model.pop(k) == v
            continue
        if key in cache:
            continue
        cache[key] = -key
        model[key] = -key
        assert len(cache) <= max_size
        assert all(model[k] == v for k, v in cache.items())
        model = {k: v for k, v in model.items() if k in cache}


def prop_lru_recency(max_size: int, ops: list[tuple[bool, int]]) -> None:
    """LRU evicts exactly the least recently used key."""
    max_size = 1 + (max_size - 1) % 64  # any integer, folded into 1..64
    cache, model = LRU(max_size), OrderedDict()
    for is_read, key in ops:
        if is_read:
            if key in model:
                assert cache[key] == model[key]
                model.move_to_end(key)
            continue
        cache[key] = key
        model[key] = key
        model.move_to_end(key)
        if len(model) > max_size:
            model.popitem(last=False)
        assert set(cache) == set(model)


def prop_threshold_counter_guarantee(threshold_inverse: int, stream: list[int]) -> None:
    """A key missing from the counter has a true count below threshold * total."""
    threshold_inverse = 2 + (threshold_inverse - 2) % 999  # folded into 2..1000
    counter = ThresholdCounter(1 / threshold_inverse)
    for key in stream:
        counter.add(key)
    truth = Counter(stream)
    for key, count in truth.items():
        if key not in counter:
            assert count < len(stream) / threshold_inverse, (key, count, len(stream))
        else:
            assert counter[key] <= count


from hypothesis import strategies as st

STRATEGIES = {
    "prop_lri_popitem_then_refill": dict(max_size=st.integers(2, 4),
                                         ops=st.lists(st.tuples(st.booleans(), st.integers(0, 30)), min_size=8, max_size=30)),
    "prop_lru_recency": dict(max_size=st.integers(2, 4),
                             ops=st.lists(st.tuples(st.booleans(), st.integers(0, 5)), min_size=8, max_size=30)),
    "prop_threshold_counter_guarantee": dict(
        threshold_inverse=st.integers(3, 5),
        stream=st.tuples(st.lists(st.integers(10, 99), min_size=6, max_size=12, unique=True),
                         st.lists(st.sampled_from([0, 0, 0, 1, 2, 3]), min_size=10, max_size=30)
                         ).map(lambda parts: parts[0] + parts[1])),
}



