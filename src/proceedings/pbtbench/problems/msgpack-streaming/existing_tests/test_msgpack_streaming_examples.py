import io

import msgpack


def test_feed_whole_stream():
    unpacker = msgpack.Unpacker()
    unpacker.feed(msgpack.packb(1) + msgpack.packb("a"))
    assert list(unpacker) == [1, "a"]


def test_file_like():
    data = msgpack.packb([1, 2]) + msgpack.packb({"k": 3})
    assert list(msgpack.Unpacker(io.BytesIO(data))) == [[1, 2], {"k": 3}]


def test_skip_scalar():
    unpacker = msgpack.Unpacker()
    unpacker.feed(msgpack.packb(1) + msgpack.packb(2))
    unpacker.skip()
    assert unpacker.unpack() == 2
