"""Property-based tests for hpack 4.2.0 (hpack-codec)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
from hypothesis import assume
from hpack import Decoder, Encoder
from hpack.hpack import decode_integer, encode_integer


def prop_integer_roundtrip(value: int, prefix_bits: int) -> None:
    """decode_integer inverts encode_integer."""
    assume(not (value < 0 or not 1 <= prefix_bits <= 8))
    encoded = encode_integer(value, prefix_bits)
    assert decode_integer(bytes(encoded), prefix_bits) == (value, len(encoded))


def prop_header_list_limit(limit: int, headers: list[tuple[bytes, bytes]]) -> None:
    """A header list no larger than max_header_list_size decodes."""
    headers = [(n, v) for n, v in headers if n]
    size = sum(len(n) + len(v) + 32 for n, v in headers)
    assume(not (not 0 <= limit or size > limit))
    decoder = Decoder(max_header_list_size=limit)
    assert decoder.decode(Encoder().encode(headers, huffman=False), raw=True) == headers


@settings(max_examples=200)
@given(limit=..., headers=...)
def test_header_list_limit(limit: int, headers: list[tuple[bytes, bytes]]):
    prop_header_list_limit(limit, headers)
