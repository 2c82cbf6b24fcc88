import io

import msgpack


def test_two_small_objects_and_their_offsets():
    unpacker = msgpack.Unpacker(io.BytesIO(msgpack.packb("ab") + msgpack.packb([1, 2])))
    assert unpacker.unpack() == "ab" and unpacker.tell() == 3
    assert unpacker.unpack() == [1, 2] and unpacker.tell() == 6
