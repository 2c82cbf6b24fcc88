"""Reference properties (hidden): one per bug. The model is an OrderedDict kept in recency order."""
from collections import OrderedDict

from boltons.cacheutils import LRI

DEFAULT_MAX_SIZE = 128  # boltons.cacheutils.DEFAULT_MAX_SIZE


def _set(cache: LRI, model: OrderedDict, key: int, value: int) -> None:
    """Set `key` in both; the model renews it and drops its oldest key past the default size."""
    cache[key] = value
    model[key] = value
    model.move_to_end(key)
    if len(model) > DEFAULT_MAX_SIZE:
        model.popitem(last=False)
    assert dict(cache) == dict(model), value


def prop_lri_holds_the_newest_keys(keys: list[int]) -> None:
    """After any sequence of sets (new keys and keys set again), an LRI of the default size holds
    exactly the 128 keys set most recently, each with its last value."""
    cache, model = LRI(), OrderedDict()
    for step, key in enumerate(keys):
        _set(cache, model, key, step)


def prop_lri_after_deletions(steps: list[tuple[bool, int]]) -> None:
    """Sets and deletions in any order: an LRI of the default size holds the 128 most recently set keys
    that were not deleted since, each with its last value."""
    cache, model = LRI(), OrderedDict()
    for step, (delete, key) in enumerate(steps):
        if not delete:
            _set(cache, model, key, step)
        elif key in model:
            del cache[key]
            del model[key]
