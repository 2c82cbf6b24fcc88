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


from hypothesis import strategies as st

_names = st.sampled_from([b"x-a", b"x-b", b"content-type", b"accept"])
_values = st.sampled_from([b"1", b"2", b"text/html", b"v"])

STRATEGIES = {
    "prop_integer_roundtrip": dict(value=st.integers(0, 3).flatmap(lambda k: st.sampled_from([
        (2 ** n - 1) + 128 * 128 ** k for n in range(1, 9)])), prefix_bits=st.integers(1, 8)),
    "prop_header_list_limit": dict(limit=st.sampled_from([36, 70, 72, 108]),
                                   headers=st.lists(st.tuples(st.sampled_from([b"a", b"bb"]), st.sampled_from([b"", b"c", b"dd"])),
                                                    min_size=1, max_size=3)),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_header_list_limit'])
def test_header_list_limit(limit, headers):
    prop_header_list_limit(limit, headers)
