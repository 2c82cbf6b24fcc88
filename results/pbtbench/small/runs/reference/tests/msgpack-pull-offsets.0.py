"""Property-based tests for msgpack 1.2.4 (msgpack-pull-offsets)."""
from hypothesis import given, settings


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


import random

from hypothesis import strategies as st


def _strings(count: int, seed: int) -> list[str]:
    """`count` strings of 200-400 letters drawn from `seed` (drawing them one by one is too large for Hypothesis)."""
    rng = random.Random(seed)
    return ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(200, 400))) for _ in range(count)]


# 80-150 strings: a stream of 16-60 KiB, so several reads of the file
STRATEGIES = {
    "prop_tell_after_each_object": dict(values=st.builds(_strings, st.integers(80, 150), st.integers(0, 2**32))),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_tell_after_each_object'])
def test_tell_after_each_object(values):
    prop_tell_after_each_object(values)
