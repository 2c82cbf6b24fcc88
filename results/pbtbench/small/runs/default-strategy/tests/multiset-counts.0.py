"""Property-based tests for multiset 3.2.0 (multiset-counts)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
from collections import Counter

from multiset import Multiset


def _agrees(ms: Multiset, model: Counter) -> None:
    model = +model
    assert dict(ms.items()) == dict(model)
    assert set(ms.distinct_elements()) == set(model)
    assert len(ms) == sum(model.values())
    assert ms <= Multiset(dict(model)) and Multiset(dict(model)) <= ms


def prop_discards_keep_counts(ops: list[tuple[bool, int, int]]) -> None:
    """After adds and partial discards the multiset agrees with a Counter."""
    ms, model = Multiset(), Counter()
    for is_add, element, n in ops:
        if not 1 <= n <= 1000:
            continue
        if is_add:
            ms.add(element, n)
            model[element] += n
        else:
            assert ms.discard(element, n) == model[element]
            model[element] = max(model[element] - n, 0)
        _agrees(ms, model)


def prop_assignments_keep_len(ops: list[tuple[int, int]]) -> None:
    """Setting multiplicities, zero and negative included, keeps len() equal to their sum."""
    ms, model = Multiset(), Counter()
    for element, n in ops:
        if not -1000 <= n <= 1000:
            continue
        ms[element] = n
        model[element] = max(n, 0)
        _agrees(ms, model)


@settings(max_examples=200)
@given(ops=...)
def test_discards_keep_counts(ops: list[tuple[bool, int, int]]):
    prop_discards_keep_counts(ops)


@settings(max_examples=200)
@given(ops=...)
def test_assignments_keep_len(ops: list[tuple[int, int]]):
    prop_assignments_keep_len(ops)
