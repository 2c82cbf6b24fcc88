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


@settings(max_examples=200)
@given(steps=...)
def test_bytes_writes_land_at_the_position(steps: list[tuple[int, int, bytes]]):
    prop_bytes_writes_land_at_the_position(steps)


@settings(max_examples=200)
@given(steps=...)
def test_bytes_len_counts_every_write(steps: list[tuple[int, int, bytes]]):
    prop_bytes_len_counts_every_write(steps)


@settings(max_examples=200)
@given(chunks=...)
def test_text_appends_keep_every_character(chunks: list[str]):
    prop_text_appends_keep_every_character(chunks)


@settings(max_examples=200)
@given(text=..., position=..., length=...)
def test_text_seek_counts_codepoints(text: str, position: int, length: int):
    prop_text_seek_counts_codepoints(text, position, length)
