"""Property-based tests for natsort 8.4.0 (natsort-keys)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
import re
from pathlib import PurePath

import natsort
from natsort import ns

REAL_NUMBER = re.compile(r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)")
FLOAT_NUMBER = re.compile(r"((?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)")
REAL_NUMBER_NOEXP = re.compile(r"([-+]?(?:\d+\.?\d*|\.\d+))")


def _ascii(words: list[str]) -> list[str]:
    """Fold each string into printable ASCII (the oracle reads ASCII digits only)."""
    return ["".join(c for c in w if " " <= c <= "~") for w in words]


def _real_key(text: str, number: re.Pattern) -> tuple:
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


def _assert_sorted_by_oracle(words: list[str], alg: ns, number: re.Pattern) -> None:
    words = _ascii(words)
    assert natsort.natsorted(words, alg=alg) == sorted(words, key=lambda w: _real_key(w, number))


def prop_realsorted_adjacent_numbers(words: list[str]) -> None:
    """realsorted orders strings by the documented key of signed floats when a string starts with two numbers."""
    _assert_sorted_by_oracle(words, ns.REAL, REAL_NUMBER)


def prop_realsorted_numbers_after_text(words: list[str]) -> None:
    """realsorted orders strings by the documented key when two numbers follow each other after some text."""
    _assert_sorted_by_oracle(words, ns.REAL, REAL_NUMBER)


def prop_realsorted_leading_point(words: list[str]) -> None:
    """A float may start at its decimal point ('.25'): realsorted reads it whole."""
    _assert_sorted_by_oracle(words, ns.REAL, REAL_NUMBER)


def prop_realsorted_nan_text_first(words: list[str]) -> None:
    """Text that reads as NaN is a number that sorts first (negative infinity)."""
    _assert_sorted_by_oracle(words, ns.REAL, REAL_NUMBER)


def prop_float_exponent_signs(words: list[str]) -> None:
    """ns.FLOAT reads exponents with either sign or none ('1e5', '1e+5', '1e-5')."""
    _assert_sorted_by_oracle(words, ns.FLOAT, FLOAT_NUMBER)


def prop_noexp_ignores_exponents(words: list[str]) -> None:
    """With ns.NOEXP an 'e' after a number is text, never an exponent."""
    _assert_sorted_by_oracle(words, ns.REAL | ns.NOEXP, REAL_NUMBER_NOEXP)


def prop_presort_reverse_mirrors(words: list[str]) -> None:
    """With ns.PRESORT the order is deterministic: reverse=True gives the forward order reversed."""
    forward = natsort.natsorted(words, alg=ns.PRESORT)
    assert natsort.natsorted(words, alg=ns.PRESORT, reverse=True) == forward[::-1]


def prop_index_presort_reverse_mirrors(words: list[str]) -> None:
    """index_natsorted with ns.PRESORT: reverse=True picks the forward order reversed."""
    forward = [words[i] for i in natsort.index_natsorted(words, alg=ns.PRESORT)]
    backward = [words[i] for i in natsort.index_natsorted(words, alg=ns.PRESORT, reverse=True)]
    assert backward == forward[::-1]


def prop_path_suffix_width(paths: list[str]) -> None:
    """ns.PATH splits off suffixes of up to five characters (the dot included), and no longer ones."""
    key = natsort.natsort_keygen()
    expected = sorted(paths, key=lambda p: tuple(key(part) for part in _path_parts(p)))
    assert natsort.natsorted(paths, alg=ns.PATH) == expected


@settings(max_examples=200)
@given(words=...)
def test_realsorted_adjacent_numbers(words: list[str]):
    prop_realsorted_adjacent_numbers(words)


@settings(max_examples=200)
@given(words=...)
def test_realsorted_leading_point(words: list[str]):
    prop_realsorted_leading_point(words)


@settings(max_examples=200)
@given(words=...)
def test_presort_reverse_mirrors(words: list[str]):
    prop_presort_reverse_mirrors(words)


@settings(max_examples=200)
@given(words=...)
def test_index_presort_reverse_mirrors(words: list[str]):
    prop_index_presort_reverse_mirrors(words)


@settings(max_examples=200)
@given(paths=...)
def test_path_suffix_width(paths: list[str]):
    prop_path_suffix_width(paths)


@settings(max_examples=200)
@given(words=...)
def test_realsorted_numbers_after_text(words: list[str]):
    prop_realsorted_numbers_after_text(words)


@settings(max_examples=200)
@given(words=...)
def test_float_exponent_signs(words: list[str]):
    prop_float_exponent_signs(words)


@settings(max_examples=200)
@given(words=...)
def test_realsorted_nan_text_first(words: list[str]):
    prop_realsorted_nan_text_first(words)
