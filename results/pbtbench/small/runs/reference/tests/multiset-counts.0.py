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


from hypothesis import strategies as st

STRATEGIES = {
    "prop_discards_keep_counts": dict(ops=st.lists(st.tuples(st.booleans(), st.integers(0, 3), st.integers(1, 3)), min_size=5, max_size=30)),
    "prop_assignments_keep_len": dict(ops=st.lists(st.tuples(st.integers(0, 3), st.integers(-2, 3)), min_size=5, max_size=20)),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_discards_keep_counts'])
def test_discards_keep_counts(ops):
    prop_discards_keep_counts(ops)


@settings(max_examples=200)
@given(**STRATEGIES['prop_assignments_keep_len'])
def test_assignments_keep_len(ops):
    prop_assignments_keep_len(ops)
