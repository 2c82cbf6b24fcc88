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
