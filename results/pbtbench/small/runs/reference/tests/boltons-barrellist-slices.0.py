"""Property-based tests for boltons 26.2.0 (boltons-barrellist-slices)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
from boltons.listutils import BarrelList


def prop_slice_assignment_matches_list(values: list[int], insert_at: int, start: int, stop: int,
                                       replacement: list[int]) -> None:
    """bl[a:b] = seq changes a BarrelList exactly as it changes a list, whatever its length."""
    insert_at = max(-len(values) - 1, min(insert_at, len(values)))  # any integer, clamped like list.insert
    barrel, model = BarrelList(values), list(values)
    barrel.insert(insert_at, -1)  # an insertion balances the barrels of a long list
    model.insert(insert_at, -1)
    start, stop = sorted((start % len(model), stop % (len(model) + 1)))  # any integers, folded into the list
    barrel[start:stop] = replacement
    model[start:stop] = replacement
    assert len(barrel) == len(model)
    assert list(barrel) == model


from hypothesis import strategies as st

STRATEGIES = {
    "prop_slice_assignment_matches_list": dict(
        values=st.integers(30000, 31000).map(lambda n: list(range(n))), insert_at=st.integers(0, 100),
        start=st.integers(1000, 5000), stop=st.integers(12000, 16000),
        replacement=st.lists(st.integers(-9, -2), max_size=5)),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_slice_assignment_matches_list'])
def test_slice_assignment_matches_list(values, insert_at, start, stop, replacement):
    prop_slice_assignment_matches_list(values, insert_at, start, stop, replacement)
