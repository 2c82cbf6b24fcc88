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
