"""Reference properties (hidden): one per bug."""
import io

import msgpack


def prop_tell_after_each_object(values: list[str]) -> None:
    """In pull mode, each object comes back in order and tell() after it is the offset of the next one."""
    packed = [msgpack.packb(v) for v in values]
    unpacker, offset = msgpack.Unpacker(io.BytesIO(b"".join(packed))), 0
    for value, data in zip(values, packed):
        assert unpacker.unpack() == value
        offset += len(data)
        assert unpacker.tell() == offset, offset
