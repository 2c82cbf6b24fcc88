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


from hypothesis import strategies as st

STRATEGIES = {
    "prop_peekable_slices_like_list": dict(items=st.lists(st.integers(0, 99), min_size=6, max_size=30),
                                           slices=st.lists(st.tuples(st.integers(3, 25), st.integers(0, 3), st.integers(-3, -1)), min_size=1, max_size=4),
                                           consumed=st.integers(0, 2)),
    "prop_seek_returns_item_at_index": dict(items=st.lists(st.integers(0, 99), min_size=3, max_size=20),
                                            ops=st.lists(st.one_of(st.tuples(st.just(False), st.just(0)),
                                                                   st.tuples(st.just(True), st.integers(0, 8))), min_size=4, max_size=20)),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_peekable_slices_like_list'])
def test_peekable_slices_like_list(items, slices, consumed):
    prop_peekable_slices_like_list(items, slices, consumed)


@settings(max_examples=200)
@given(**STRATEGIES['prop_seek_returns_item_at_index'])
def test_seek_returns_item_at_index(items, ops):
    prop_seek_returns_item_at_index(items, ops)
