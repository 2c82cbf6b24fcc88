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


@settings(max_examples=200)
@given(items=..., updates=...)
def test_updates_keep_priority_order(items: list[tuple[int, int]], updates: list[tuple[int, int]]):
    prop_updates_keep_priority_order(items, updates)


@settings(max_examples=200)
@given(items=..., removed=...)
def test_removals_keep_priority_order(items: list[tuple[int, int]], removed: list[int]):
    prop_removals_keep_priority_order(items, removed)


@settings(max_examples=200)
@given(n=..., mapping=...)
def test_nsmallest_matches_sorted(n: int, mapping: dict[int, int]):
    prop_nsmallest_matches_sorted(n, mapping)
