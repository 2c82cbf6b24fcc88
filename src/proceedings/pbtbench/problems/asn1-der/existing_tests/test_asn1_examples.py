import asn1


def test_short_values_round_trip():
    encoder = asn1.Encoder()
    encoder.start()
    encoder.write(b"\x01\x02")
    encoder.write([1, -2, 300])
    decoder = asn1.Decoder()
    decoder.start(encoder.output())
    assert decoder.read()[1] == b"\x01\x02"
    assert decoder.read()[1] == [1, -2, 300]
    assert decoder.eof()


def test_der_octets():
    encoder = asn1.Encoder()
    encoder.start()
    encoder.write(b"\xff")
    assert encoder.output() == b"\x04\x01\xff"
