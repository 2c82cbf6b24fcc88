"""Property-based tests for jsonpointer 3.12 (jsonpointer-tokens)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
import re

from jsonpointer import EndOfList, JsonPointer, escape, resolve_pointer

_ARRAY_INDEX = re.compile("0|[1-9][0-9]*")  # RFC 6901, section 4
_MISSING = object()


def prop_parts_round_trip(parts: list[str]) -> None:
    """A pointer built from tokens, and parsed again from its path, has exactly those tokens."""
    pointer = JsonPointer.from_parts(parts)
    assert pointer.parts == parts
    assert JsonPointer(pointer.path).parts == parts


def prop_array_index_tokens(items: list[int], token: str) -> None:
    """Against an array only '-' or a canonical index inside the array resolves."""
    found = resolve_pointer(items, "/" + escape(token), _MISSING)
    if token == "-":
        assert isinstance(found, EndOfList)
    elif _ARRAY_INDEX.fullmatch(token) and int(token) < len(items):
        assert found == items[int(token)]
    else:
        assert found is _MISSING


@settings(max_examples=200)
@given(parts=...)
def test_parts_round_trip(parts: list[str]):
    prop_parts_round_trip(parts)


@settings(max_examples=200)
@given(items=..., token=...)
def test_array_index_tokens(items: list[int], token: str):
    prop_array_index_tokens(items, token)
