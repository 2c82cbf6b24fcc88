from hypothesis import strategies as st

_NUMERAL_SHAPE = r"M{0,4}(CM|CD|D?C{0,4})(XC|XL|L?X{0,4})(IX|IV|V?I{0,4})"  # the grammar, with a 4th repeat allowed

STRATEGIES = {
    "prop_to_roman_range": dict(n=st.integers(4990, 5010)),
    "prop_from_roman_canonical": dict(s=st.from_regex(_NUMERAL_SHAPE, fullmatch=True).filter(bool)),
}
