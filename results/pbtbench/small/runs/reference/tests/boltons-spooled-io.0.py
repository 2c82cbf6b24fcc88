"""Property-based tests for boltons 26.2.0 (boltons-spooled-io)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
import io

from boltons.ioutils import SpooledBytesIO, SpooledStringIO

MAX_SIZE = 4096  # bytes held in memory before the file rolls over to a temporary file
TEXT_MAX_SIZE = 8192  # the same for text, whose default examples hold up to four bytes per character


def _bytes_step(spooled, model, kind: int, number: int, payload: bytes) -> None:
    """One step on a SpooledBytesIO and on a BytesIO model: write, seek inside the data, or read."""
    if kind % 3 == 0:
        spooled.write(payload)
        model.write(payload)
    elif kind % 3 == 1:
        target = number % (len(model.getvalue()) + 1)
        spooled.seek(target)
        model.seek(target)
    else:
        assert spooled.read(number % 64) == model.read(number % 64)


def prop_bytes_writes_land_at_the_position(steps: list[tuple[int, int, bytes]]) -> None:
    """Writes, seeks and reads behave as on io.BytesIO, before and after the rollover."""
    spooled, model = SpooledBytesIO(max_size=MAX_SIZE), io.BytesIO()
    for kind, number, payload in steps:
        _bytes_step(spooled, model, kind, number, payload)
        assert spooled.tell() == model.tell()
    assert spooled.getvalue() == model.getvalue()


def prop_bytes_len_counts_every_write(steps: list[tuple[int, int, bytes]]) -> None:
    """len() is the number of bytes in the file after every step, in memory or rolled over."""
    spooled, model = SpooledBytesIO(max_size=MAX_SIZE), io.BytesIO()
    for kind, number, payload in steps:
        _bytes_step(spooled, model, kind, number, payload)
        assert len(spooled) == len(model.getvalue())
        assert spooled.tell() == model.tell()


def prop_text_appends_keep_every_character(chunks: list[str]) -> None:
    """Text written piece by piece reads back whole, before and after the rollover."""
    spooled = SpooledStringIO(max_size=TEXT_MAX_SIZE)
    for chunk in chunks:
        spooled.write(chunk)
    assert spooled.tell() == len("".join(chunks))
    assert spooled.getvalue() == "".join(chunks)


def prop_text_seek_counts_codepoints(text: str, position: int, length: int) -> None:
    """seek(n) moves to the n-th code point, however long the text."""
    spooled = SpooledStringIO(max_size=TEXT_MAX_SIZE)
    spooled.write(text)
    target = position % (len(text) + 1)
    assert spooled.seek(target) == target
    assert spooled.read(length % 64) == text[target:target + length % 64]


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


@settings(max_examples=200)
@given(**STRATEGIES['prop_bytes_writes_land_at_the_position'])
def test_bytes_writes_land_at_the_position(steps):
    prop_bytes_writes_land_at_the_position(steps)


@settings(max_examples=200)
@given(**STRATEGIES['prop_bytes_len_counts_every_write'])
def test_bytes_len_counts_every_write(steps):
    prop_bytes_len_counts_every_write(steps)


@settings(max_examples=200)
@given(**STRATEGIES['prop_text_appends_keep_every_character'])
def test_text_appends_keep_every_character(chunks):
    prop_text_appends_keep_every_character(chunks)


@settings(max_examples=200)
@given(**STRATEGIES['prop_text_seek_counts_codepoints'])
def test_text_seek_counts_codepoints(text, position, length):
    prop_text_seek_counts_codepoints(text, position, length)
