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


@settings(max_examples=200)
@given(data=...)
def test_octets_roundtrip(data: bytes):
    prop_octets_roundtrip(data)


@settings(max_examples=200)
@given(values=...)
def test_sequence_roundtrip(values: list[int]):
    prop_sequence_roundtrip(values)
