"""Property-based tests for boltons 26.2.0 (boltons-lru-links)."""
from hypothesis import given, settings


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


from hypothesis import strategies as st


def _fill_renew_twice_overflow():
    """128 new keys, key `early` set again twice (other renewals may come between), then new keys past the size."""
    return st.tuples(st.integers(0, 60), st.lists(st.integers(0, 127), max_size=3), st.integers(70, 160)).map(
        lambda t: list(range(128)) + [t[0]] + t[1] + [t[0]] + [1000 + k for k in range(t[2])])


def _fill_delete_renew_next_overflow():
    """128 new keys, key `k` deleted, the key set after it set again, then new keys past the size."""
    return st.tuples(st.integers(0, 60), st.integers(70, 160)).map(
        lambda t: [(False, k) for k in range(128)] + [(True, t[0]), (False, t[0] + 1)]
        + [(False, 1000 + k) for k in range(t[1])])


STRATEGIES = {
    "prop_lri_holds_the_newest_keys": dict(keys=_fill_renew_twice_overflow()),
    "prop_lri_after_deletions": dict(steps=_fill_delete_renew_next_overflow()),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_lri_holds_the_newest_keys'])
def test_lri_holds_the_newest_keys(keys):
    prop_lri_holds_the_newest_keys(keys)


@settings(max_examples=200)
@given(**STRATEGIES['prop_lri_after_deletions'])
def test_lri_after_deletions(steps):
    prop_lri_after_deletions(steps)
