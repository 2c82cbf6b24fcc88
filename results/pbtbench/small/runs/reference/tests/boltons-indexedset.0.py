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


from hypothesis import strategies as st

def _prefix(lo, hi):
    return st.integers(lo, hi).map(lambda n: list(range(n)))

STRATEGIES = {
    "prop_getitem_matches_list": dict(values=_prefix(24, 40), removals=st.lists(st.integers(0, 20), min_size=2, max_size=2),
                                      probes=st.lists(st.integers(0, 22), min_size=10, max_size=20)),
    "prop_index_roundtrip": dict(values=_prefix(24, 40),
                                 removals=st.integers(3, 15).map(lambda i: [i, i + 1])),
    "prop_pop_last": dict(values=st.just(list(range(32))), removals=st.just([30, 31]), pops=st.integers(1, 5)),
    "prop_pop_index": dict(values=_prefix(5, 12), indices=st.lists(st.integers(0, 10), min_size=3, max_size=8)),
    "prop_bulk_difference": dict(values=_prefix(450, 600), removals=st.lists(st.integers(0, 449), min_size=1, max_size=1),
                                 bulk=st.integers(400, 440).map(lambda k: list(range(10, k)))),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_getitem_matches_list'])
def test_getitem_matches_list(values, removals, probes):
    prop_getitem_matches_list(values, removals, probes)


@settings(max_examples=200)
@given(**STRATEGIES['prop_index_roundtrip'])
def test_index_roundtrip(values, removals):
    prop_index_roundtrip(values, removals)


@settings(max_examples=200)
@given(**STRATEGIES['prop_pop_last'])
def test_pop_last(values, removals, pops):
    prop_pop_last(values, removals, pops)


@settings(max_examples=200)
@given(**STRATEGIES['prop_bulk_difference'])
def test_bulk_difference(values, removals, bulk):
    prop_bulk_difference(values, removals, bulk)
