"""Property-based tests for u-msgpack-python 2.8.0 (umsgpack-codec)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
import datetime

import umsgpack

_UTC = datetime.timezone.utc


def prop_binary_roundtrip(data: bytes) -> None:
    """Binary strings of any length round-trip."""
    assert umsgpack.unpackb(umsgpack.packb(data)) == data


def prop_ext_roundtrip(code: int, data: bytes) -> None:
    """Ext(type, data) round-trips for every type -128..127 but the timestamp's -1, and data of any length."""
    code = code % 255 - 128  # any integer, folded into -128..126
    code += code >= -1  # then past -1, the timestamp extension
    value = umsgpack.Ext(code, data)
    assert umsgpack.unpackb(umsgpack.packb(value)) == value


def prop_datetime_roundtrip(moment: datetime.datetime) -> None:
    """A datetime (naive ones read as UTC) round-trips through the timestamp extension, at any instant."""
    expected = moment if moment.tzinfo else moment.replace(tzinfo=_UTC)
    assert umsgpack.unpackb(umsgpack.packb(moment)) == expected


def prop_list_roundtrip(values: list[int]) -> None:
    """Lists of any length round-trip (integers in the 64-bit range)."""
    values = [v % 2**64 - 2**63 for v in values]  # any integers, folded into the signed 64-bit range
    assert umsgpack.unpackb(umsgpack.packb(values)) == values


def prop_unsigned_roundtrip(value: int) -> None:
    """Every unsigned 64-bit integer round-trips."""
    value %= 2**64  # any integer, folded into [0, 2**64)
    assert umsgpack.unpackb(umsgpack.packb(value)) == value


def prop_text_roundtrip(text: str) -> None:
    """Strings of any UTF-8 length round-trip."""
    assert umsgpack.unpackb(umsgpack.packb(text)) == text



def prop_short_binary_roundtrip(data: bytes) -> None:
    """Binary strings round-trip as bytes inside an array, whatever their length."""
    assert umsgpack.unpackb(umsgpack.packb([data])) == [data]


def prop_long_text_roundtrip(words: list[str]) -> None:
    """The words joined into one string round-trip, whatever its UTF-8 length."""
    text = " ".join(words)
    assert umsgpack.unpackb(umsgpack.packb(text)) == text


@settings(max_examples=200)
@given(data=...)
def test_binary_roundtrip(data: bytes):
    prop_binary_roundtrip(data)


@settings(max_examples=200)
@given(code=..., data=...)
def test_ext_roundtrip(code: int, data: bytes):
    prop_ext_roundtrip(code, data)


@settings(max_examples=200)
@given(moment=...)
def test_datetime_roundtrip(moment: datetime.datetime):
    prop_datetime_roundtrip(moment)


@settings(max_examples=200)
@given(values=...)
def test_list_roundtrip(values: list[int]):
    prop_list_roundtrip(values)


@settings(max_examples=200)
@given(value=...)
def test_unsigned_roundtrip(value: int):
    prop_unsigned_roundtrip(value)


@settings(max_examples=200)
@given(text=...)
def test_text_roundtrip(text: str):
    prop_text_roundtrip(text)


@settings(max_examples=200)
@given(data=...)
def test_short_binary_roundtrip(data: bytes):
    prop_short_binary_roundtrip(data)


@settings(max_examples=200)
@given(words=...)
def test_long_text_roundtrip(words: list[str]):
    prop_long_text_roundtrip(words)
