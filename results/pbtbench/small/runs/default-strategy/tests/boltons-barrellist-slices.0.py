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


@settings(max_examples=200)
@given(values=..., insert_at=..., start=..., stop=..., replacement=...)
def test_slice_assignment_matches_list(values: list[int], insert_at: int, start: int, stop: int, replacement: list[int]):
    prop_slice_assignment_matches_list(values, insert_at, start, stop, replacement)
