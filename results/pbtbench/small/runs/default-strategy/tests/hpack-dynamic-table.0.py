"""Property-based tests for hpack 4.2.0 (hpack-dynamic-table)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug.

Each property writes HPACK header blocks by hand (RFC 7541 section 6: literal fields with incremental
indexing and indexed fields) and keeps its own model of the dynamic table (section 4: entries
newest first, size = name + value + 32 octets, the oldest evicted while the size exceeds 4,096), so
the decoder's table is checked against the RFC rather than against the library's own encoder.
"""
from hpack import Decoder, Encoder, HPACKDecodingError

TABLE_SIZE = 4096  # SETTINGS_HEADER_TABLE_SIZE default, RFC 7541 section 4.2
STATIC_ENTRIES = 61  # RFC 7541 Appendix A


def _integer(value: int, prefix_bits: int, flags: int) -> bytes:
    """RFC 7541 section 5.1 integer with an N-bit prefix."""
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([flags | value])
    out, value = [flags | limit], value - limit
    while value >= 128:
        out.append(value % 128 + 128)
        value //= 128
    return bytes(out + [value])


def _literal_with_indexing(name: bytes, value: bytes) -> bytes:
    """Literal header field with incremental indexing, new name (section 6.2.1), no Huffman coding."""
    return b"\x40" + _integer(len(name), 7, 0) + name + _integer(len(value), 7, 0) + value


def _indexed(index: int) -> bytes:
    """Indexed header field (section 6.1)."""
    return _integer(index, 7, 0x80)


class _Table:
    """The dynamic table as RFC 7541 section 4 defines it."""

    def __init__(self) -> None:
        self.entries: list[tuple[bytes, bytes]] = []

    def size(self) -> int:
        return sum(len(n) + len(v) + 32 for n, v in self.entries)

    def add(self, name: bytes, value: bytes) -> None:
        self.entries.insert(0, (name, value))
        while self.size() > TABLE_SIZE:
            self.entries.pop()


def _decode_steps(steps: list[tuple[int, bytes, bytes]]) -> None:
    """Each step is one header block: add a literal (kind % 3 == 0, or an empty table), refer to a live
    dynamic entry (kind % 3 == 1), or refer one index past the table, which must be refused (kind % 3 == 2)."""
    decoder, table = Decoder(), _Table()
    for kind, name, value in steps:
        if kind % 3 == 0 or not table.entries:
            assert decoder.decode(_literal_with_indexing(name, value), raw=True) == [(name, value)]
            table.add(name, value)
        elif kind % 3 == 1:
            position = (kind // 3) % len(table.entries)
            assert decoder.decode(_indexed(STATIC_ENTRIES + 1 + position), raw=True) == [table.entries[position]]
        else:
            try:
                decoder.decode(_indexed(STATIC_ENTRIES + 1 + len(table.entries)), raw=True)
            except HPACKDecodingError:
                continue
            raise AssertionError(f"index past a table of {len(table.entries)} entries was decoded")


def prop_entries_that_fit_exactly_stay(steps: list[tuple[int, bytes, bytes]]) -> None:
    """An entry stays in the table while the table's size is at most 4,096 octets."""
    _decode_steps(steps)


def prop_eviction_removes_the_oldest_entry(steps: list[tuple[int, bytes, bytes]]) -> None:
    """Eviction removes entries from the end of the table: the oldest first."""
    _decode_steps(steps)


def prop_entry_size_counts_the_overhead(steps: list[tuple[int, bytes, bytes]]) -> None:
    """An entry's size is its name and value lengths plus 32 octets; evicted entries cannot be referenced."""
    _decode_steps(steps)


def prop_oversized_entry_empties_the_table(steps: list[tuple[int, bytes, bytes]]) -> None:
    """A field larger than the whole table empties the table; nothing older can be referenced after it."""
    _decode_steps(steps)


def prop_encoder_and_decoder_agree_across_blocks(blocks: list[list[tuple[bytes, bytes]]]) -> None:
    """Header blocks encoded by one Encoder decode, in order, by one Decoder to the fields encoded."""
    encoder, decoder = Encoder(), Decoder()
    for block in blocks:
        assert decoder.decode(encoder.encode(block), raw=True) == block


@settings(max_examples=200)
@given(steps=...)
def test_entries_that_fit_exactly_stay(steps: list[tuple[int, bytes, bytes]]):
    prop_entries_that_fit_exactly_stay(steps)


@settings(max_examples=200)
@given(steps=...)
def test_eviction_removes_the_oldest_entry(steps: list[tuple[int, bytes, bytes]]):
    prop_eviction_removes_the_oldest_entry(steps)


@settings(max_examples=200)
@given(steps=...)
def test_entry_size_counts_the_overhead(steps: list[tuple[int, bytes, bytes]]):
    prop_entry_size_counts_the_overhead(steps)


@settings(max_examples=200)
@given(blocks=...)
def test_encoder_and_decoder_agree_across_blocks(blocks: list[list[tuple[bytes, bytes]]]):
    prop_encoder_and_decoder_agree_across_blocks(blocks)


@settings(max_examples=200)
@given(steps=...)
def test_oversized_entry_empties_the_table(steps: list[tuple[int, bytes, bytes]]):
    prop_oversized_entry_empties_the_table(steps)
