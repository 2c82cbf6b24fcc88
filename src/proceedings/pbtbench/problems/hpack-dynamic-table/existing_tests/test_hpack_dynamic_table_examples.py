from hpack import Decoder, Encoder


def test_literal_then_indexed_reference():
    decoder = Decoder()
    assert decoder.decode(b"\x40\x06x-name\x05value", raw=True) == [(b"x-name", b"value")]
    assert decoder.decode(b"\xbe", raw=True) == [(b"x-name", b"value")]


def test_encoder_and_decoder_agree_across_blocks():
    encoder, decoder = Encoder(), Decoder()
    for block in ([("x-a", "1"), ("x-b", "2")], [("x-a", "1")], [("x-b", "2"), ("x-c", "3")]):
        assert decoder.decode(encoder.encode(block)) == block
