"""Property-based tests for boltons 26.2.0 (boltons-lru-popitem)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug. The model is an OrderedDict kept in recency order, beside
a dict kept in insertion order (what dict.popitem, which LRI.popitem inherits, removes from)."""
from collections import OrderedDict

from boltons.cacheutils import LRI

DEFAULT_MAX_SIZE = 128  # boltons.cacheutils.DEFAULT_MAX_SIZE


def prop_lri_after_popitem(steps: list[tuple[bool, int]]) -> None:
    """Sets and popitem() calls in any order: popitem() removes the key a dict would (the last inserted
    of those held), and the cache keeps holding the most recently set keys, at most 128."""
    cache, recency, inserted = LRI(), OrderedDict(), {}
    for step, (pop, key) in enumerate(steps):
        if pop:
            if inserted:
                last = next(reversed(inserted))
                assert cache.popitem() == (last, inserted.pop(last))
                del recency[last]
            continue
        cache[key] = step
        inserted[key] = step
        recency[key] = step
        recency.move_to_end(key)
        if len(recency) > DEFAULT_MAX_SIZE:
            oldest, _ = recency.popitem(last=False)
            del inserted[oldest]
        assert dict(cache) == inserted, step


from hypothesis import strategies as st


def _fill_pop_overflow():
    """128 new keys, one or two popitem() calls, then enough new keys to cycle through the whole cache."""
    return st.tuples(st.integers(1, 2), st.integers(130, 200)).map(
        lambda t: [(False, k) for k in range(128)] + [(True, 0)] * t[0] + [(False, 1000 + k) for k in range(t[1])])


STRATEGIES = {
    "prop_lri_after_popitem": dict(steps=_fill_pop_overflow()),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_lri_after_popitem'])
def test_lri_after_popitem(steps):
    prop_lri_after_popitem(steps)
