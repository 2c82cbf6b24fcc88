from hypothesis import strategies as st


def _texts(*pieces: str):
    return st.lists(st.sampled_from(pieces), min_size=1, max_size=8).map("".join)


STRATEGIES = {
    "prop_multiline_basic_roundtrip": dict(value=_texts('"', '"""', "a", "\n", " ")),
    "prop_multiline_literal_holds_or_refuses": dict(value=_texts("'", "'''", "a", "\n", " ")),
}
