"""Property-based tests for boltons 26.2.0 (boltons-barrellist)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
from boltons.listutils import BarrelList


def _built(values: list[int], insert_at: int) -> tuple[BarrelList, list[int]]:
    insert_at = max(-len(values) - 1, min(insert_at, len(values)))
    barrel, model = BarrelList(values), list(values)
    barrel.insert(insert_at, -1)
    model.insert(insert_at, -1)
    return barrel, model


def prop_indexing_matches_list(values: list[int], insert_at: int, probes: list[int]) -> None:
    """bl[i] == list(bl)[i] everywhere."""
    barrel, model = _built(values, insert_at)
    boundaries = []
    position = 0
    for part in barrel.lists:
        position += len(part)
        boundaries.append(position)
    for i in probes + boundaries:
        if -len(model) <= i < len(model):
            assert barrel[i] == model[i], i


def prop_delete_slice(values: list[int], insert_at: int, start: int, stop: int) -> None:
    """del bl[a:b] removes exactly list(bl)[a:b]."""
    barrel, model = _built(values, insert_at)
    # any integers, folded into the list; start stays below len (del bl[n:n] raises IndexError, clean or not)
    start, stop = sorted((start % len(model), stop % (len(model) + 1)))
    del barrel[start:stop]
    del model[start:stop]
    assert list(barrel) == model


def prop_reversed(values: list[int], insert_at: int) -> None:
    """reversed(bl) is the list reversed."""
    barrel, model = _built(values, insert_at)
    assert list(reversed(barrel)) == model[::-1]


def prop_sort(values: list[int], insert_at: int) -> None:
    """sort() sorts every element once."""
    barrel, model = _built(values, insert_at)
    barrel.sort()
    model.sort()
    assert list(barrel) == model


@settings(max_examples=200)
@given(values=..., insert_at=..., probes=...)
def test_indexing_matches_list(values: list[int], insert_at: int, probes: list[int]):
    prop_indexing_matches_list(values, insert_at, probes)


@settings(max_examples=200)
@given(values=..., insert_at=..., start=..., stop=...)
def test_delete_slice(values: list[int], insert_at: int, start: int, stop: int):
    prop_delete_slice(values, insert_at, start, stop)


@settings(max_examples=200)
@given(values=..., insert_at=...)
def test_reversed(values: list[int], insert_at: int):
    prop_reversed(values, insert_at)


@settings(max_examples=200)
@given(values=..., insert_at=...)
def test_sort(values: list[int], insert_at: int):
    prop_sort(values, insert_at)
