"""Property-based tests for asn1 3.3.0 (asn1-der)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
import asn1


def _decoded(encoded: bytes) -> list:
    decoder = asn1.Decoder()
    decoder.start(encoded)
    values = []
    while not decoder.eof():
        values.append(decoder.read()[1])
    return values


def prop_octets_roundtrip(data: bytes) -> None:
    """An OCTET STRING of any length decodes to the bytes that were written."""
    encoder = asn1.Encoder()
    encoder.start()
    encoder.write(data)
    assert _decoded(encoder.output()) == [data]


def prop_sequence_roundtrip(values: list[int]) -> None:
    """A list written as a SEQUENCE of INTEGERs decodes to the same list, whatever its encoded length."""
    encoder = asn1.Encoder()
    encoder.start()
    encoder.write(values)
    assert _decoded(encoder.output()) == [values]


def prop_context_tag_roundtrip(number: int, data: bytes) -> None:
    """A value written under a context-specific tag number of any size reads back with that tag number."""
    number = abs(number) % 2**14  # any integer, folded into the tag numbers 0..16383
    encoder = asn1.Encoder()
    encoder.start()
    encoder.write(data, nr=number, typ=asn1.Types.Primitive, cls=asn1.Classes.Context)
    decoder = asn1.Decoder()
    decoder.start(encoder.output())
    tag, value = decoder.read()
    assert (tag.nr, tag.cls, value) == (number, asn1.Classes.Context, data)


@settings(max_examples=200)
@given(data=...)
def test_octets_roundtrip(data: bytes):
    prop_octets_roundtrip(data)


@settings(max_examples=200)
@given(values=...)
def test_sequence_roundtrip(values: list[int]):
    prop_sequence_roundtrip(values)


@settings(max_examples=200)
@given(number=..., data=...)
def test_context_tag_roundtrip(number: int, data: bytes):
    prop_context_tag_roundtrip(number, data)
