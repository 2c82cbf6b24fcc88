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


from hypothesis import strategies as st

STRATEGIES = {
    "prop_ext_roundtrip_any_size": dict(code=st.integers(0, 126), data=st.integers(65536, 70000).map(lambda n: b"\x02" * n)),
    "prop_compatibility_roundtrip": dict(data=st.integers(65534, 65538).map(lambda n: b"\x03" * n), compatible=st.just(True)),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_ext_roundtrip_any_size'])
def test_ext_roundtrip_any_size(code, data):
    prop_ext_roundtrip_any_size(code, data)


@settings(max_examples=200)
@given(**STRATEGIES['prop_compatibility_roundtrip'])
def test_compatibility_roundtrip(data, compatible):
    prop_compatibility_roundtrip(data, compatible)
