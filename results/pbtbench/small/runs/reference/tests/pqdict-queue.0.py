"""Property-based tests for pqdict 1.5.1 (pqdict-queue)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
from pqdict import nsmallest, pqdict


def _drain(pq: pqdict) -> list[int]:
    return [value for _key, value in pq.popitems()]


def prop_updates_keep_priority_order(items: list[tuple[int, int]], updates: list[tuple[int, int]]) -> None:
    """After updating priorities of existing keys, popitems() yields values in ascending order."""
    pq, model = pqdict(), {}
    for key, value in items:
        pq[key] = value
        model[key] = value
    for key, value in updates:
        if key in model:
            pq.updateitem(key, value)
            model[key] = value
    assert _drain(pq) == sorted(model.values())


def prop_removals_keep_priority_order(items: list[tuple[int, int]], removed: list[int]) -> None:
    """Removing arbitrary keys leaves a queue that still pops in priority order."""
    pq, model = pqdict(), {}
    for key, value in items:
        pq[key] = value
        model[key] = value
    for key in removed:
        if key in model:
            assert pq.pop(key) == model.pop(key)
    assert _drain(pq) == sorted(model.values())


def prop_nsmallest_matches_sorted(n: int, mapping: dict[int, int]) -> None:
    """nsmallest(n, m) returns the keys of the n smallest values, ascending."""
    n %= 1001  # any integer, folded into 0..1000
    got = nsmallest(n, mapping)
    assert [mapping[k] for k in got] == sorted(mapping.values())[:n]


from hypothesis import strategies as st

_unique_items = st.lists(st.tuples(st.integers(0, 60), st.integers(100, 1000)), min_size=20, max_size=60, unique_by=lambda kv: kv[0])

STRATEGIES = {
    "prop_updates_keep_priority_order": dict(items=_unique_items, updates=st.lists(st.tuples(st.integers(0, 60), st.integers(0, 50)), min_size=20, max_size=40)),
    "prop_removals_keep_priority_order": dict(items=_unique_items, removed=st.lists(st.integers(0, 60), min_size=5, max_size=30)),
    "prop_nsmallest_matches_sorted": dict(n=st.integers(1, 3), mapping=st.dictionaries(st.integers(0, 500), st.integers(0, 1000), min_size=5, max_size=30)),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_updates_keep_priority_order'])
def test_updates_keep_priority_order(items, updates):
    prop_updates_keep_priority_order(items, updates)


@settings(max_examples=200)
@given(**STRATEGIES['prop_removals_keep_priority_order'])
def test_removals_keep_priority_order(items, removed):
    prop_removals_keep_priority_order(items, removed)


@settings(max_examples=200)
@given(**STRATEGIES['prop_nsmallest_matches_sorted'])
def test_nsmallest_matches_sorted(n, mapping):
    prop_nsmallest_matches_sorted(n, mapping)
