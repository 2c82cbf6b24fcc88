from hpack import Decoder, Encoder


def test_short_fields_roundtrip_with_and_without_huffman():
    fields = [("x-name", "value"), ("x-other", "v2")]
    for huffman in (True, False):
        assert Decoder().decode(Encoder().encode(fields, huffman=huffman), raw=True) == [
            (b"x-name", b"value"), (b"x-other", b"v2")]


def test_a_sensitive_field_with_a_new_name():
    block = Encoder().encode([("x-secret", "s3cr3t", True)])
    assert block[0] & 0xF0 == 0x10
    assert Decoder().decode(block, raw=True) == [(b"x-secret", b"s3cr3t")]
