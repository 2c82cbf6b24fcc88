"""Property-based tests for tomlkit 0.15.1 (tomlkit-strings)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug. The oracle is the standard library's TOML reader."""
import tomllib

import tomlkit
from tomlkit.exceptions import InvalidStringError

NOT_IN_LITERALS = {chr(c) for c in range(0x20) if chr(c) not in "\t\n"} | {"\x7f", "'''"}


def _readable(text: str) -> str:
    """Drop the two characters tomlkit writes in forms Python 3.11's tomllib does not read (ESC as \\e, a bare CR)."""
    return text.replace("\x1b", "").replace("\r", "")


def _read_back(name: str, item) -> object:
    doc = tomlkit.document()
    doc[name] = item
    return tomllib.loads(tomlkit.dumps(doc))[name]


def prop_multiline_basic_roundtrip(value: str) -> None:
    """A multi-line basic string holds any text: it reads back unchanged."""
    value = _readable(value)
    assert _read_back("text", tomlkit.string(value, multiline=True)) == value


def prop_multiline_literal_holds_or_refuses(value: str) -> None:
    """A multi-line literal string reads back unchanged, or is refused exactly when the text cannot be one."""
    value = _readable(value)
    try:
        item = tomlkit.string(value, literal=True, multiline=True)
    except InvalidStringError:
        item = None
    if item is None:
        assert any(bad in value for bad in NOT_IN_LITERALS)
    else:
        assert _read_back("text", item) == value


@settings(max_examples=200)
@given(value=...)
def test_multiline_basic_roundtrip(value: str):
    prop_multiline_basic_roundtrip(value)


@settings(max_examples=200)
@given(value=...)
def test_multiline_literal_holds_or_refuses(value: str):
    prop_multiline_literal_holds_or_refuses(value)
