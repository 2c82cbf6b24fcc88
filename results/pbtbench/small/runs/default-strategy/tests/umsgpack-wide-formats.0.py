"""Property-based tests for u-msgpack-python 2.8.0 (umsgpack-wide-formats)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
import umsgpack


def prop_ext_roundtrip_any_size(code: int, data: bytes) -> None:
    """Ext(type, data) round-trips for every type -128..127 but -1 and data of any length."""
    code = code % 255 - 128  # any integer, folded into -128..126
    code += code >= -1  # then past -1, the timestamp extension
    value = umsgpack.Ext(code, data)
    assert umsgpack.unpackb(umsgpack.packb(value)) == value


def prop_compatibility_roundtrip(data: bytes, compatible: bool) -> None:
    """Bytes of any length round-trip, in compatibility mode (the old raw type) and out of it."""
    umsgpack.compatibility = compatible
    try:
        assert umsgpack.unpackb(umsgpack.packb(data)) == data
    finally:
        umsgpack.compatibility = False


@settings(max_examples=200)
@given(code=..., data=...)
def test_ext_roundtrip_any_size(code: int, data: bytes):
    prop_ext_roundtrip_any_size(code, data)


@settings(max_examples=200)
@given(data=..., compatible=...)
def test_compatibility_roundtrip(data: bytes, compatible: bool):
    prop_compatibility_roundtrip(data, compatible)
