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
