"""Property-based tests for boltons 26.2.0 (boltons-jsonl-iterator)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
import io
import json

from boltons.jsonutils import JSONLIterator


def _jsonl(values: list) -> bytes:
    """One JSON document per line (json.dumps escapes every line break inside a value)."""
    return "".join(json.dumps(value) + "\n" for value in values).encode()


def prop_reverse_yields_last_line_first(values: list[int]) -> None:
    """With reverse=True the objects come out last line first, for files of any size."""
    assert list(JSONLIterator(io.BytesIO(_jsonl(values)), reverse=True)) == values[::-1]


def prop_rel_seek_starts_after_the_next_newline(values: list[str], position: int) -> None:
    """With rel_seek=r the iteration starts at the first line after the first newline at or after
    int(r * size), however long the lines are."""
    data = _jsonl(values)
    rel_seek = (abs(position) % 999 + 1) / 1000  # any integer, folded into 0.001..0.999
    newline = data.find(b"\n", int(len(data) * rel_seek))
    expected = [] if newline < 0 else [json.loads(line) for line in data[newline + 1:].splitlines()]
    assert list(JSONLIterator(io.BytesIO(data), rel_seek=rel_seek)) == expected


from hypothesis import strategies as st

_LONG = st.tuples(st.sampled_from("abcxyz"), st.integers(4200, 9000)).map(lambda t: t[0] * t[1])

STRATEGIES = {
    "prop_reverse_yields_last_line_first": dict(
        values=st.lists(st.integers(10**15, 10**18), min_size=300, max_size=500)),
    "prop_rel_seek_starts_after_the_next_newline": dict(
        values=st.lists(_LONG, min_size=3, max_size=6), position=st.integers(50, 900)),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_reverse_yields_last_line_first'])
def test_reverse_yields_last_line_first(values):
    prop_reverse_yields_last_line_first(values)


@settings(max_examples=200)
@given(**STRATEGIES['prop_rel_seek_starts_after_the_next_newline'])
def test_rel_seek_starts_after_the_next_newline(values, position):
    prop_rel_seek_starts_after_the_next_newline(values, position)
