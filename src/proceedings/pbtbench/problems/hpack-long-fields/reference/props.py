"""Reference properties (hidden): one per bug."""
import string

from hypothesis import assume

from hpack import Decoder, Encoder

_TOKEN = string.ascii_lowercase + string.digits + "-"
_ALNUM = string.ascii_letters + string.digits


def _fold(text: str, alphabet: str, limit: int | None = 64) -> str:
    """Any string, folded character by character into `alphabet` (names and most values are ASCII) and cut
    to `limit` characters, so that no field is long enough to need a multi-octet length by accident."""
    return "".join(c if c in alphabet else alphabet[ord(c) % len(alphabet)] for c in text[:limit])


def _roundtrip(fields: list[tuple[str, str, bool]], huffman: bool) -> None:
    block = Encoder().encode(fields, huffman=huffman)
    expected = [(name.encode(), value.encode()) for name, value, _ in fields]
    assert Decoder().decode(block, raw=True) == expected


def prop_sensitive_field_roundtrip(name: str, value: str, sensitive: bool) -> None:
    """A field round-trips whether or not it is sensitive (sent never-indexed), whatever its name."""
    _roundtrip([(_fold(name, _TOKEN), _fold(value, _ALNUM), sensitive)], huffman=True)


def prop_huffman_value_any_length(name: str, value: str, huffman: bool) -> None:
    """A field with a literal name and value round-trips at any length, Huffman-coded or not."""
    _roundtrip([("x-" + _fold(name, _TOKEN), _fold(value, _ALNUM, limit=None), False)], huffman=huffman)


def prop_long_literal_name(name: str, value: str, then: str) -> None:
    """A field with a literal name of any length round-trips, and so does the field after it."""
    # "_" is outside the fold's alphabet, so the first name never equals the second (a repeated name would be
    # sent as an indexed name: Hypothesis draws its built-in constant "then" often enough to build "x-then")
    fields = [("x-" + _fold(name, _TOKEN, limit=None), _fold(value, _ALNUM), False), ("x_then", _fold(then, _ALNUM), False)]
    _roundtrip(fields, huffman=False)


def prop_table_name_new_value(name: str, value: str) -> None:
    """A field whose name is already in a table but whose value is new round-trips (sent with the
    name as an index and incremental indexing)."""
    _roundtrip([(_fold(name, _TOKEN), _fold(value, _ALNUM), False)], huffman=True)


def prop_table_name_long_value(name: str, value: str) -> None:
    """A field whose name is already in a table round-trips (sent with the name as an index), Huffman-coded,
    whatever the length of its value."""
    _roundtrip([(_fold(name, _TOKEN + ":"), _fold(value, _ALNUM, limit=None), False)], huffman=True)


def prop_repeat_after_many_fields(names: list[str], pick: int) -> None:
    """Fields added to the dynamic table in one block and one of them sent again in the next block (as an
    index into the table) decode, block after block, to what was encoded."""
    assume(names)
    fields = [("x-" + _fold(name, _TOKEN) + f"-{i}", f"v{i}") for i, name in enumerate(names)]
    encoder, decoder = Encoder(), Decoder()
    again = [fields[pick % len(fields)]]
    for block in (fields, again):
        assert decoder.decode(encoder.encode(block), raw=True) == [(n.encode(), v.encode()) for n, v in block]
