"""Property-based tests for msgpack 1.2.4 (msgpack-streaming)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
from hypothesis import assume
import io
import msgpack


def prop_feed_in_pieces(values: list[str], chunk: int) -> None:
    """Feeding the stream in pieces of any size yields the packed objects in order."""
    assume(not (chunk < 1))
    data = b"".join(msgpack.packb(v) for v in values)
    unpacker, seen = msgpack.Unpacker(), []
    for start in range(0, len(data), chunk):
        unpacker.feed(data[start:start + chunk])
        seen.extend(unpacker)
    assert seen == values


def prop_file_like_read_size(values: list[list[int]], read_size: int) -> None:
    """Pull mode yields every object whatever read_size is."""
    assume(1 <= read_size <= 2**20)
    values = [[x for x in v if -2**63 <= x < 2**64] for v in values]
    data = b"".join(msgpack.packb(v) for v in values)
    assert list(msgpack.Unpacker(io.BytesIO(data), read_size=read_size)) == values


from hypothesis import strategies as st

STRATEGIES = {
    "prop_feed_in_pieces": dict(values=st.lists(st.text(min_size=40, max_size=60), min_size=2, max_size=4),
                                chunk=st.integers(5, 40)),
    "prop_file_like_read_size": dict(values=st.lists(st.lists(st.integers(0, 2**40), min_size=3, max_size=8), min_size=3, max_size=6),
                                     read_size=st.integers(1, 7)),
}



