"""Property-based tests for boltons 26.2.0 (boltons-barrellist-positions)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
from boltons.listutils import BarrelList


def _built(values: list[int]) -> tuple[BarrelList, list[int]]:
    """A BarrelList and a list built by the same operations: construction, then one insert at the front
    (which splits a long list into barrels)."""
    barrel, model = BarrelList(values), list(values)
    barrel.insert(0, -1)
    model.insert(0, -1)
    return barrel, model


def prop_insert_at_positions(values: list[int], inserts: list[tuple[int, int]]) -> None:
    """insert(i, x) puts x where a list's insert(i, x) would, on a split list too."""
    barrel, model = _built(values)
    for index, value in inserts:
        index = min(max(index, -len(model) - 1), len(model) + 1)  # any integer, past either end included
        barrel.insert(index, value)
        model.insert(index, value)
    assert list(barrel) == model


def prop_delete_at_positions(values: list[int], positions: list[int]) -> None:
    """del bl[i] removes the element a list's del would, on a split list too."""
    barrel, model = _built(values)
    for i in positions[:len(model) - 1]:  # each deletion leaves at least one element for the next
        i = i % len(model)
        del barrel[i]
        del model[i]
    assert list(barrel) == model


from hypothesis import strategies as st

_long = st.integers(30000, 31000).map(lambda n: list(range(n)))  # long enough that the insert splits it

STRATEGIES = {
    "prop_insert_at_positions": dict(values=_long, inserts=st.lists(st.tuples(st.integers(12000, 29000), st.integers(-9, -2)),
                                                                    min_size=1, max_size=4)),
    "prop_delete_at_positions": dict(values=_long, positions=st.lists(st.integers(12000, 29000), min_size=1, max_size=4)),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_insert_at_positions'])
def test_insert_at_positions(values, inserts):
    prop_insert_at_positions(values, inserts)


@settings(max_examples=200)
@given(**STRATEGIES['prop_delete_at_positions'])
def test_delete_at_positions(values, positions):
    prop_delete_at_positions(values, positions)
