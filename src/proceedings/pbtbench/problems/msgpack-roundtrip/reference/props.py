"""Reference properties (hidden): one per bug."""
from hypothesis import assume
import msgpack


def prop_dict_roundtrip(entries: list[tuple[str, int]]) -> None:
    """Dicts of any size round-trip."""
    value = dict(entries)
    assume(all(-2**63 <= v < 2**64 for v in value.values()))
    assert msgpack.unpackb(msgpack.packb(value)) == value


def prop_int_roundtrip(values: list[int]) -> None:
    """Integers of every width round-trip."""
    values = [v for v in values if -2**63 <= v < 2**64]
    assert msgpack.unpackb(msgpack.packb(values)) == values


def prop_text_roundtrip(text: str) -> None:
    """Strings of any length round-trip."""
    assert msgpack.unpackb(msgpack.packb(text)) == text


def prop_ext_roundtrip(code: int, data: bytes) -> None:
    """ExtType(code, data) round-trips for any data length."""
    code %= 128  # any integer, folded into the application range 0..127
    value = msgpack.ExtType(code, data)
    assert msgpack.unpackb(msgpack.packb(value)) == value


def prop_timestamp_roundtrip(seconds: int, nanoseconds: int) -> None:
    """Timestamps round-trip for any seconds in the signed 64-bit range."""
    assume(-2**63 <= seconds < 2**63 and 0 <= nanoseconds < 10**9)
    value = msgpack.Timestamp(seconds, nanoseconds)
    assert msgpack.unpackb(msgpack.packb(value)) == value


def prop_list_roundtrip(values: list[int]) -> None:
    """Lists of any length round-trip (and stay lists)."""
    values = [v for v in values if -2**63 <= v < 2**64]
    assert msgpack.unpackb(msgpack.packb(values)) == values


def prop_unsigned_roundtrip(value: int) -> None:
    """Every unsigned 64-bit integer round-trips."""
    value %= 2**64  # any integer, folded into [0, 2**64)
    assert msgpack.unpackb(msgpack.packb(value)) == value


def prop_bytes_roundtrip(data: bytes) -> None:
    """Byte strings of any length round-trip as bytes."""
    assert msgpack.unpackb(msgpack.packb(data)) == data


def prop_timestamp_list_roundtrip(stamps: list[tuple[int, int]]) -> None:
    """A list of timestamps round-trips, each in whichever timestamp format its values require."""
    values = [msgpack.Timestamp(s, ns % 10**9) for s, ns in stamps if -2**63 <= s < 2**63]
    assert msgpack.unpackb(msgpack.packb(values)) == values
