"""Property-based tests for boltons 26.2.0 (boltons-barrellist-queries)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
from boltons.listutils import BarrelList


def _built(values: list[int], insert_at: int) -> tuple[BarrelList, list[int]]:
    """A BarrelList and a list built by the same operations: construction, then one insert (which may split)."""
    insert_at = max(-len(values) - 1, min(insert_at, len(values)))
    barrel, model = BarrelList(values), list(values)
    barrel.insert(insert_at, -1)
    model.insert(insert_at, -1)
    return barrel, model


def prop_index_matches_list(values: list[int], insert_at: int, probes: list[int]) -> None:
    """bl.index(x) is the position of the first x in the whole list, or ValueError as for a list."""
    barrel, model = _built(values, insert_at)
    for x in probes:
        try:
            found = barrel.index(x)
        except ValueError:
            found = None
        assert found == (model.index(x) if x in model else None), x


def prop_reverse_in_place(values: list[int], insert_at: int) -> None:
    """bl.reverse() leaves the elements in the opposite order."""
    barrel, model = _built(values, insert_at)
    barrel.reverse()
    model.reverse()
    assert list(barrel) == model


def prop_contains_matches_list(values: list[int], insert_at: int, probes: list[int]) -> None:
    """`x in bl` holds exactly when x is somewhere in the whole list."""
    barrel, model = _built(values, insert_at)
    for x in probes:
        assert (x in barrel) == (x in model), x


def prop_setitem_matches_list(values: list[int], insert_at: int, updates: list[tuple[int, int]]) -> None:
    """bl[i] = x changes exactly the element a list would change (or raises IndexError like a list)."""
    barrel, model = _built(values, insert_at)
    for index, value in updates:
        try:
            model[index] = value
        except IndexError:
            continue
        barrel[index] = value
    assert list(barrel) == model


from hypothesis import strategies as st

_long = st.integers(30000, 31000).map(lambda n: list(range(n)))  # long enough that the insert splits it

STRATEGIES = {
    "prop_index_matches_list": dict(values=_long, insert_at=st.integers(0, 100),
                                    probes=st.lists(st.integers(12000, 29000), min_size=1, max_size=4)),
    "prop_contains_matches_list": dict(values=_long, insert_at=st.integers(0, 100),
                                       probes=st.lists(st.integers(12000, 29000), min_size=1, max_size=4)),
    "prop_setitem_matches_list": dict(values=_long, insert_at=st.integers(0, 100),
                                      updates=st.lists(st.tuples(st.integers(12000, 29000), st.integers(-9, -1)),
                                                       min_size=1, max_size=4)),
    "prop_reverse_in_place": dict(values=_long, insert_at=st.integers(0, 100)),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_index_matches_list'])
def test_index_matches_list(values, insert_at, probes):
    prop_index_matches_list(values, insert_at, probes)


@settings(max_examples=200)
@given(**STRATEGIES['prop_reverse_in_place'])
def test_reverse_in_place(values, insert_at):
    prop_reverse_in_place(values, insert_at)


@settings(max_examples=200)
@given(**STRATEGIES['prop_contains_matches_list'])
def test_contains_matches_list(values, insert_at, probes):
    prop_contains_matches_list(values, insert_at, probes)


@settings(max_examples=200)
@given(**STRATEGIES['prop_setitem_matches_list'])
def test_setitem_matches_list(values, insert_at, updates):
    prop_setitem_matches_list(values, insert_at, updates)
