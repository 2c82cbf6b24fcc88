"""Property-based tests for boltons 26.2.0 (boltons-barrellist-mutation)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
from boltons.listutils import BarrelList


def prop_insert_at_end(values: list[int], extra: list[int]) -> None:
    """insert(len(bl), x) appends, on a split list too."""
    barrel, model = BarrelList(values), list(values)
    barrel.insert(0, -1)
    model.insert(0, -1)
    for x in extra:
        barrel.insert(len(model), x)
        model.insert(len(model), x)
    assert list(barrel) == model


def prop_pop_everything(values: list[int], pops: int) -> None:
    """Successive pop() calls return the elements from the end, across barrels."""
    barrel, model = BarrelList(values), list(values)
    barrel.insert(0, -1)
    model.insert(0, -1)
    for _ in range(min(max(pops, 0), len(model))):
        assert barrel.pop() == model.pop()


def prop_pop_at_positions(values: list[int], positions: list[int]) -> None:
    """pop(i) removes and returns the element a list's pop(i) would, on a split list too."""
    barrel, model = BarrelList(values), list(values)
    barrel.insert(0, -1)
    model.insert(0, -1)
    for i in positions[:len(model)]:  # each pop leaves at least one element for the next
        i = i % len(model)
        assert barrel.pop(i) == model.pop(i)
    assert list(barrel) == model


@settings(max_examples=200)
@given(values=..., extra=...)
def test_insert_at_end(values: list[int], extra: list[int]):
    prop_insert_at_end(values, extra)


@settings(max_examples=200)
@given(values=..., pops=...)
def test_pop_everything(values: list[int], pops: int):
    prop_pop_everything(values, pops)


@settings(max_examples=200)
@given(values=..., positions=...)
def test_pop_at_positions(values: list[int], positions: list[int]):
    prop_pop_at_positions(values, positions)
