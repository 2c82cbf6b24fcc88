from hpack import Decoder, Encoder


def test_roundtrip_one_block():
    headers = [(b":method", b"GET"), (b"x-custom", b"value")]
    assert Decoder().decode(Encoder().encode(headers), raw=True) == headers


def test_repeated_header_uses_table():
    encoder, decoder = Encoder(), Decoder()
    first = encoder.encode([(b"x-a", b"1")])
    second = encoder.encode([(b"x-a", b"1")])
    assert len(second) < len(first)
    assert decoder.decode(first, raw=True) == decoder.decode(second, raw=True) == [(b"x-a", b"1")]
