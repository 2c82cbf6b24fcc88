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


from hypothesis import strategies as st


def _words(*pieces: str, prefix: str = "", size: int = 4):
    """Lists of strings glued from a few pieces, so that strings share prefixes."""
    word = st.lists(st.sampled_from(pieces), min_size=1, max_size=size).map(lambda parts: prefix + "".join(parts))
    return st.lists(word, min_size=2, max_size=8)


def _joined(*choices: tuple):
    """Lists of strings made of one piece from each choice, in order."""
    return st.lists(st.tuples(*(st.sampled_from(c) for c in choices)).map("".join), min_size=2, max_size=8)


STRATEGIES = {
    "prop_realsorted_adjacent_numbers": dict(words=_joined(("1", "2"), ("", "-1", "+2", "-3"), ("", "x", "y"))),
    "prop_realsorted_numbers_after_text": dict(words=_joined(("x",), ("1", "2"), ("", "-1", "+2", "-3"), ("", "x", "y"))),
    "prop_realsorted_leading_point": dict(words=_words("x.2", "x.25", "x.3", "a", prefix="x")),
    "prop_realsorted_nan_text_first": dict(words=st.lists(st.sampled_from(["nan", "NaN", "inf", "-inf", "1", "x", "2x", "y"]), min_size=2, max_size=8)),
    "prop_float_exponent_signs": dict(words=_words("1", "2", "e", "e+", "e-", "x", prefix="x")),
    "prop_noexp_ignores_exponents": dict(words=_words("x", "1", "2", "e", "E", "5", prefix="x")),
    "prop_presort_reverse_mirrors": dict(words=_words("a", "1", "01", "001", "b")),
    "prop_index_presort_reverse_mirrors": dict(words=_words("a", "1", "01", "001", "b")),
    "prop_path_suffix_width": dict(paths=_words("a", "0", "-", ".bcd", ".ab", "b/")),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_realsorted_adjacent_numbers'])
def test_realsorted_adjacent_numbers(words):
    prop_realsorted_adjacent_numbers(words)


@settings(max_examples=200)
@given(**STRATEGIES['prop_realsorted_leading_point'])
def test_realsorted_leading_point(words):
    prop_realsorted_leading_point(words)


@settings(max_examples=200)
@given(**STRATEGIES['prop_presort_reverse_mirrors'])
def test_presort_reverse_mirrors(words):
    prop_presort_reverse_mirrors(words)


@settings(max_examples=200)
@given(**STRATEGIES['prop_index_presort_reverse_mirrors'])
def test_index_presort_reverse_mirrors(words):
    prop_index_presort_reverse_mirrors(words)


@settings(max_examples=200)
@given(**STRATEGIES['prop_path_suffix_width'])
def test_path_suffix_width(paths):
    prop_path_suffix_width(paths)


@settings(max_examples=200)
@given(**STRATEGIES['prop_realsorted_numbers_after_text'])
def test_realsorted_numbers_after_text(words):
    prop_realsorted_numbers_after_text(words)


@settings(max_examples=200)
@given(**STRATEGIES['prop_float_exponent_signs'])
def test_float_exponent_signs(words):
    prop_float_exponent_signs(words)


@settings(max_examples=200)
@given(**STRATEGIES['prop_realsorted_nan_text_first'])
def test_realsorted_nan_text_first(words):
    prop_realsorted_nan_text_first(words)
