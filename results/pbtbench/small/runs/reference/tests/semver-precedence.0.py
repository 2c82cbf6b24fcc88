"""Property-based tests for semver 3.1.2 (semver-precedence)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
import re

from hypothesis import assume
from semver import Version


_IDENT = re.compile(r"[0-9A-Za-z-]+")


def _valid(parts: list[str]) -> bool:
    return all(_IDENT.fullmatch(p) and not (p.isdigit() and len(p) > 1 and p[0] == "0") for p in parts)


def _precedence(parts: list[str]) -> tuple:
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts)


def prop_numeric_identifiers_compare_numerically(pairs: list[tuple[int, int]]) -> None:
    """Pre-release identifiers of digits compare as numbers."""
    assume(pairs)
    a, b = [str(abs(x)) for x, _ in pairs], [str(abs(y)) for _, y in pairs]
    va, vb = Version(1, 0, 0, ".".join(a)), Version(1, 0, 0, ".".join(b))
    expected = (_precedence(a) > _precedence(b)) - (_precedence(a) < _precedence(b))
    assert va.compare(vb) == expected, (str(va), str(vb))


def prop_longer_prerelease_is_higher(a: list[str], extra: list[str]) -> None:
    """alpha < alpha.1: more identifiers win when the shared ones are equal."""
    assume(a and extra and _valid(a) and _valid(extra))
    shorter, longer = Version(2, 1, 0, ".".join(a)), Version(2, 1, 0, ".".join(a + extra))
    assert shorter < longer and longer > shorter


def _as_word(text: str) -> str:
    """The letters and hyphens of `text` (an identifier that does not end in a digit), or "b" when none is left."""
    return "".join(c for c in text if c.isascii() and (c.isalpha() or c == "-")) or "b"


def prop_bump_build_increments_last_number(prefix: list[str], number: int) -> None:
    """bump_build increments the last number and keeps the rest."""
    prefix, number = [_as_word(t) for t in prefix], abs(number)  # any strings and integers, folded into a valid build
    build = ".".join(prefix + [str(number)])
    bumped = Version(1, 2, 3, build=build).bump_build()
    assert bumped.build == ".".join(prefix + [str(number + 1)])


from hypothesis import strategies as st

_numeric = st.integers(0, 120).map(str)
_word = st.sampled_from(["alpha", "beta", "rc", "x-y"])

STRATEGIES = {
    "prop_numeric_identifiers_compare_numerically": dict(
        pairs=st.lists(st.tuples(st.integers(0, 120), st.integers(0, 120)), min_size=1, max_size=3).map(
            lambda ps: ps + [(9, 10)])),
    "prop_longer_prerelease_is_higher": dict(a=st.lists(st.one_of(_numeric, _word), min_size=1, max_size=3),
                                             extra=st.lists(st.one_of(_numeric, _word), min_size=1, max_size=2)),
    "prop_bump_build_increments_last_number": dict(prefix=st.lists(_word, max_size=2),
                                                   number=st.sampled_from([9, 99, 999, 19999])),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_bump_build_increments_last_number'])
def test_bump_build_increments_last_number(prefix, number):
    prop_bump_build_increments_last_number(prefix, number)
