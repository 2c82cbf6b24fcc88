from hypothesis import strategies as st


def _joined(*choices: tuple):
    """Lists of strings made of one piece from each choice, in order."""
    return st.lists(st.tuples(*(st.sampled_from(c) for c in choices)).map("".join), min_size=2, max_size=8)


STRATEGIES = {
    "prop_signed_integers_take_plus": dict(words=_joined(("a",), ("+", "-", ""), ("2", "5"), ("", "x"))),
    "prop_path_at_most_two_suffixes": dict(paths=_joined(("a", "a-x", "a0", "b/a"), ("", ".b", ".e"), (".c.d",))),
}
