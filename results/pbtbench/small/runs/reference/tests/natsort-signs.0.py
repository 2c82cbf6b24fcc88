"""Property-based tests for natsort 8.4.0 (natsort-signs)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
import re
from pathlib import PurePath

import natsort
from natsort import ns

SIGNED_INTEGER = re.compile(r"([-+]?\d+)")


def _signed_int_key(text: str) -> tuple:
    """The documented key under ns.SIGNED: text and signed integers alternate, starting with text."""
    key: list = []
    for i, part in enumerate(SIGNED_INTEGER.split(text)):
        if i % 2 and (not key or not isinstance(key[-1], str)):
            key.append("")
        if part:
            key.append(int(part) if i % 2 else part)
    return tuple(key)


def _path_parts(path: str) -> list[str]:
    """Directories, then the file name's stem, then up to two suffixes of at most five characters."""
    *folders, name = PurePath(path).parts or (str(PurePath(path)),)
    suffixes: list[str] = []
    for suffix in reversed(PurePath(name).suffixes):
        if re.match(r"\.\d", suffix) or len(suffixes) == 2 or len(suffix) > 5:
            break
        suffixes.insert(0, suffix)
    stem = name.replace("".join(suffixes), "")
    return [part for part in [*folders, stem, *suffixes] if part]


def prop_signed_integers_take_plus(words: list[str]) -> None:
    """ns.SIGNED reads a '+' directly before an integer as its sign ('a+2' holds +2)."""
    words = ["".join(c for c in w if " " <= c <= "~") for w in words]
    assert natsort.natsorted(words, alg=ns.SIGNED) == sorted(words, key=_signed_int_key)


def prop_path_at_most_two_suffixes(paths: list[str]) -> None:
    """ns.PATH splits off at most the last two suffixes of a file name."""
    key = natsort.natsort_keygen()
    expected = sorted(paths, key=lambda p: tuple(key(part) for part in _path_parts(p)))
    assert natsort.natsorted(paths, alg=ns.PATH) == expected


from hypothesis import strategies as st


def _joined(*choices: tuple):
    """Lists of strings made of one piece from each choice, in order."""
    return st.lists(st.tuples(*(st.sampled_from(c) for c in choices)).map("".join), min_size=2, max_size=8)


STRATEGIES = {
    "prop_signed_integers_take_plus": dict(words=_joined(("a",), ("+", "-", ""), ("2", "5"), ("", "x"))),
    "prop_path_at_most_two_suffixes": dict(paths=_joined(("a", "a-x", "a0", "b/a"), ("", ".b", ".e"), (".c.d",))),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_signed_integers_take_plus'])
def test_signed_integers_take_plus(words):
    prop_signed_integers_take_plus(words)


@settings(max_examples=200)
@given(**STRATEGIES['prop_path_at_most_two_suffixes'])
def test_path_at_most_two_suffixes(paths):
    prop_path_at_most_two_suffixes(paths)
