"""Property-based tests for natsort 8.4.0 (natsort-forms)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
import re
from pathlib import PurePath

import natsort
from natsort import ns

FLOAT_NUMBER = re.compile(r"((?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)")


def _ascii(words: list[str]) -> list[str]:
    """Fold each string into printable ASCII (the oracle reads ASCII digits only)."""
    return ["".join(c for c in w if " " <= c <= "~") for w in words]


def _float_key(text: str, number: re.Pattern) -> tuple:
    """The documented key: text and numbers alternate, starting with text ('' before a leading or adjacent number)."""
    key: list = []
    for i, part in enumerate(number.split(text)):
        value = float(part) if i % 2 else _float_or_text(part)
        if isinstance(value, float) and (not key or not isinstance(key[-1], str)):
            key.append("")
        if value != "":
            key.append(value)
    return tuple(key)


def _float_or_text(part: str):
    """Text that Python reads as a float ('inf', 'nan', ...) counts as a number; NaN sorts first."""
    try:
        value = float(part)
    except ValueError:
        return part
    return float("-inf") if value != value else value


def _assert_sorted_by_oracle(words: list[str], alg: ns, number: re.Pattern) -> None:
    words = _ascii(words)
    assert natsort.natsorted(words, alg=alg) == sorted(words, key=lambda w: _float_key(w, number))


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


def _assert_paths_sorted_by_parts(paths: list[str]) -> None:
    key = natsort.natsort_keygen()
    expected = sorted(paths, key=lambda p: tuple(key(part) for part in _path_parts(p)))
    assert natsort.natsorted(paths, alg=ns.PATH) == expected


def prop_float_trailing_point(words: list[str]) -> None:
    """ns.FLOAT reads a number that ends at its decimal point ('12.') as one float."""
    _assert_sorted_by_oracle(words, ns.FLOAT, FLOAT_NUMBER)


def prop_float_reads_exponents(words: list[str]) -> None:
    """ns.FLOAT (without ns.NOEXP) reads an exponent as part of its number ('1e5' is 100000.0)."""
    _assert_sorted_by_oracle(words, ns.FLOAT, FLOAT_NUMBER)


def prop_path_suffix_order(paths: list[str]) -> None:
    """ns.PATH compares a file name's suffixes in the order they are written."""
    _assert_paths_sorted_by_parts(paths)


def prop_path_numeric_suffix_kept(paths: list[str]) -> None:
    """ns.PATH never splits off a suffix that starts with a digit ('.5' is part of a number)."""
    _assert_paths_sorted_by_parts(paths)


from hypothesis import strategies as st


def _joined(*choices: tuple):
    """Lists of strings made of one piece from each choice, in order."""
    return st.lists(st.tuples(*(st.sampled_from(c) for c in choices)).map("".join), min_size=2, max_size=8)


STRATEGIES = {
    "prop_float_trailing_point": dict(words=_joined(("x",), ("12", "5"), ("", ".", ".5"), ("", "-", "a"))),
    "prop_float_reads_exponents": dict(words=_joined(("x",), ("1", "2", "30"), ("", "e", "E"), ("", "1", "5"), ("", "a"))),
    "prop_path_suffix_order": dict(paths=_joined(("a", "a-", "b/a"), (".b", ".c", ".d"), (".b", ".c", ".d"))),
    "prop_path_numeric_suffix_kept": dict(paths=_joined(("x", "x-", "b/x"), ("", "1", "-1"), ("", ".5", ".25", "a"))),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_float_trailing_point'])
def test_float_trailing_point(words):
    prop_float_trailing_point(words)


@settings(max_examples=200)
@given(**STRATEGIES['prop_path_suffix_order'])
def test_path_suffix_order(paths):
    prop_path_suffix_order(paths)


@settings(max_examples=200)
@given(**STRATEGIES['prop_path_numeric_suffix_kept'])
def test_path_numeric_suffix_kept(paths):
    prop_path_numeric_suffix_kept(paths)
