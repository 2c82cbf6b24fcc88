from hypothesis import strategies as st

_FILLER = st.binary(min_size=30, max_size=50).map(lambda b: b * 40)  # 1,200-2,000 bytes


def _writes_then_seek_back_and_cross(fill):
    """Fill below the limit, seek back into the data, then write across the limit."""
    size = sum(len(b) for b in fill)
    return st.tuples(st.integers(1, size - 1), st.integers(4500, 6000)).map(
        lambda t: [(0, 0, b) for b in fill] + [(1, t[0], b""), (0, 0, b"w" * t[1]), (2, 50, b"")])


_MULTIBYTE = st.text(alphabet="aé€😀\n", min_size=20, max_size=40).map(lambda s: s * 25)  # 500-1,000 characters

STRATEGIES = {
    "prop_bytes_writes_land_at_the_position": dict(
        steps=st.lists(_FILLER, min_size=2, max_size=2).flatmap(_writes_then_seek_back_and_cross)),
    "prop_bytes_len_counts_every_write": dict(
        steps=st.lists(st.tuples(st.just(0), st.just(0), _FILLER), min_size=4, max_size=8)),
    "prop_text_appends_keep_every_character": dict(chunks=st.lists(_MULTIBYTE, min_size=12, max_size=16)),
    "prop_text_seek_counts_codepoints": dict(
        text=st.tuples(st.text(alphabet="ab€", min_size=7, max_size=12), st.integers(12, 16)).map(
            lambda t: t[0] * 300 * t[1]),
        position=st.integers(21400, 21999), length=st.integers(1, 63)),
}
