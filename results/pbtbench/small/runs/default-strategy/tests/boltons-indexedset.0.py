"""Property-based tests for boltons 26.2.0 (boltons-indexedset)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
from boltons.setutils import IndexedSet


def _built(values: list[int], removals: list[int]) -> tuple[IndexedSet, list[int]]:
    items = IndexedSet(values)
    model = list(dict.fromkeys(values))
    for value in removals:
        if value in items:
            items.remove(value)
            model.remove(value)
    return items, model


def prop_getitem_matches_list(values: list[int], removals: list[int], probes: list[int]) -> None:
    """s[i] == list(s)[i] after removals."""
    items, model = _built(values, removals)
    for i in probes:
        if -len(model) <= i < len(model):
            assert items[i] == model[i], (i, items[i], model[i])


def prop_index_roundtrip(values: list[int], removals: list[int]) -> None:
    """s.index(x) is x's position in the current sequence."""
    items, model = _built(values, removals)
    for i, value in enumerate(model):
        assert items.index(value) == i


def prop_pop_last(values: list[int], removals: list[int], pops: int) -> None:
    """pop() returns the last element of the current sequence."""
    items, model = _built(values, removals)
    for _ in range(min(max(pops, 0), len(model))):
        assert items.pop() == model.pop()
    assert list(items) == model


def prop_pop_index(values: list[int], indices: list[int]) -> None:
    """pop(i) removes and returns the element at position i."""
    items, model = _built(values, [])
    for i in indices:
        if 0 <= i < len(model):
            assert items.pop(i) == model.pop(i)
    assert list(items) == model


def prop_bulk_difference(values: list[int], removals: list[int], bulk: list[int]) -> None:
    """difference_update keeps order and length whatever the number of elements removed."""
    items, model = _built(values, removals)
    gone = set(bulk)
    items.difference_update(gone)
    model = [x for x in model if x not in gone]
    assert len(items) == len(model)
    assert list(items) == model


@settings(max_examples=200)
@given(values=..., removals=..., probes=...)
def test_getitem_matches_list(values: list[int], removals: list[int], probes: list[int]):
    prop_getitem_matches_list(values, removals, probes)


@settings(max_examples=200)
@given(values=..., removals=...)
def test_index_roundtrip(values: list[int], removals: list[int]):
    prop_index_roundtrip(values, removals)


@settings(max_examples=200)
@given(values=..., removals=..., pops=...)
def test_pop_last(values: list[int], removals: list[int], pops: int):
    prop_pop_last(values, removals, pops)


@settings(max_examples=200)
@given(values=..., removals=..., bulk=...)
def test_bulk_difference(values: list[int], removals: list[int], bulk: list[int]):
    prop_bulk_difference(values, removals, bulk)
