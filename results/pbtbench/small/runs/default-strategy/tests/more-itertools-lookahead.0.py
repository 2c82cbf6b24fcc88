"""Property-based tests for more-itertools 11.2.1 (more-itertools-lookahead)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
from hypothesis import assume
from more_itertools import peekable, seekable


def prop_peekable_slices_like_list(items: list[int], slices: list[tuple[int, int, int]], consumed: int) -> None:
    """p[start:stop:step] equals slicing the list of remaining items, as the cache grows."""
    assume(0 <= consumed <= 1000)
    p = peekable(items)
    remaining = list(items)
    for _ in range(min(consumed, len(items))):
        assert next(p) == remaining.pop(0)
    for start, stop, step in slices:
        if step == 0:
            continue
        assert p[start:stop:step] == remaining[start:stop:step], (start, stop, step)


def prop_seek_returns_item_at_index(items: list[int], ops: list[tuple[bool, int]]) -> None:
    """After seek(i) the next item is items[i]; next() walks forward from there."""
    s = seekable(items)
    position = 0
    for is_seek, value in ops:
        if is_seek:
            if not 0 <= value <= 1000:
                continue
            s.seek(value)
            position = value
        else:
            expected = items[position] if position < len(items) else None
            assert next(s, None) == expected, (position, value)
            position = min(position + 1, len(items))


@settings(max_examples=200)
@given(items=..., slices=..., consumed=...)
def test_peekable_slices_like_list(items: list[int], slices: list[tuple[int, int, int]], consumed: int):
    prop_peekable_slices_like_list(items, slices, consumed)


@settings(max_examples=200)
@given(items=..., ops=...)
def test_seek_returns_item_at_index(items: list[int], ops: list[tuple[bool, int]]):
    prop_seek_returns_item_at_index(items, ops)
