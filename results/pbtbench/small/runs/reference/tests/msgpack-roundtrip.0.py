"""Property-based tests for msgpack 1.2.4 (msgpack-roundtrip)."""
from hypothesis import given, settings


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


from hypothesis import strategies as st

STRATEGIES = {
    "prop_dict_roundtrip": dict(entries=st.lists(st.tuples(st.text(max_size=3), st.integers(0, 9)),
                                                 min_size=16, max_size=18, unique_by=lambda e: e[0])),
    "prop_int_roundtrip": dict(values=st.lists(st.sampled_from([-2**15, -2**15 - 1, -2**7, -2**31, 2**16, -1]), min_size=1, max_size=4)),
    "prop_text_roundtrip": dict(text=st.integers(256, 600).map(lambda n: "x" * n)),
    "prop_ext_roundtrip": dict(code=st.integers(0, 127), data=st.integers(256, 600).map(lambda n: bytes(n))),
    "prop_timestamp_roundtrip": dict(seconds=st.integers(2**34, 2**35 - 1), nanoseconds=st.integers(0, 10**9 - 1)),
    "prop_list_roundtrip": dict(values=st.integers(14, 18).flatmap(lambda n: st.lists(st.integers(0, 9), min_size=n, max_size=n))),
    "prop_unsigned_roundtrip": dict(value=st.sampled_from([2**32 - 1, 2**32, 2**32 + 1, 2**16, 2**64 - 1])),
    "prop_bytes_roundtrip": dict(data=st.integers(256, 600).map(lambda n: bytes(n))),
    "prop_timestamp_list_roundtrip": dict(stamps=st.lists(st.tuples(st.integers(2**32, 2**33 - 1), st.just(0)), min_size=1, max_size=3)),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_dict_roundtrip'])
def test_dict_roundtrip(entries):
    prop_dict_roundtrip(entries)


@settings(max_examples=200)
@given(**STRATEGIES['prop_text_roundtrip'])
def test_text_roundtrip(text):
    prop_text_roundtrip(text)


@settings(max_examples=200)
@given(**STRATEGIES['prop_ext_roundtrip'])
def test_ext_roundtrip(code, data):
    prop_ext_roundtrip(code, data)


@settings(max_examples=200)
@given(**STRATEGIES['prop_timestamp_roundtrip'])
def test_timestamp_roundtrip(seconds, nanoseconds):
    prop_timestamp_roundtrip(seconds, nanoseconds)


@settings(max_examples=200)
@given(**STRATEGIES['prop_int_roundtrip'])
def test_int_roundtrip(values):
    prop_int_roundtrip(values)


@settings(max_examples=200)
@given(**STRATEGIES['prop_list_roundtrip'])
def test_list_roundtrip(values):
    prop_list_roundtrip(values)


@settings(max_examples=200)
@given(**STRATEGIES['prop_unsigned_roundtrip'])
def test_unsigned_roundtrip(value):
    prop_unsigned_roundtrip(value)


@settings(max_examples=200)
@given(**STRATEGIES['prop_bytes_roundtrip'])
def test_bytes_roundtrip(data):
    prop_bytes_roundtrip(data)


@settings(max_examples=200)
@given(**STRATEGIES['prop_timestamp_list_roundtrip'])
def test_timestamp_list_roundtrip(stamps):
    prop_timestamp_list_roundtrip(stamps)
