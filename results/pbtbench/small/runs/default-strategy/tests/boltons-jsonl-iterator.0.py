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


@settings(max_examples=200)
@given(values=...)
def test_reverse_yields_last_line_first(values: list[int]):
    prop_reverse_yields_last_line_first(values)


@settings(max_examples=200)
@given(values=..., position=...)
def test_rel_seek_starts_after_the_next_newline(values: list[str], position: int):
    prop_rel_seek_starts_after_the_next_newline(values, position)
