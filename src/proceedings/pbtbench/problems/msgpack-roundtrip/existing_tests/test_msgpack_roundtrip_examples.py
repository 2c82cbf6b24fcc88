import msgpack


def test_roundtrip_small_values():
    for value in [None, True, 1, -1, 1.5, "abc", b"xyz", [1, 2], {"a": 1}]:
        assert msgpack.unpackb(msgpack.packb(value)) == value


def test_ext_type():
    value = msgpack.ExtType(5, b"abc")
    assert msgpack.unpackb(msgpack.packb(value)) == value


def test_timestamp():
    value = msgpack.Timestamp(1, 5)
    assert msgpack.unpackb(msgpack.packb(value)) == value
