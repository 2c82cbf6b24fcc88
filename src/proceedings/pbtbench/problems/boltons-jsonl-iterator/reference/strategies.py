from hypothesis import strategies as st

_LONG = st.tuples(st.sampled_from("abcxyz"), st.integers(4200, 9000)).map(lambda t: t[0] * t[1])

STRATEGIES = {
    "prop_reverse_yields_last_line_first": dict(
        values=st.lists(st.integers(10**15, 10**18), min_size=300, max_size=500)),
    "prop_rel_seek_starts_after_the_next_newline": dict(
        values=st.lists(_LONG, min_size=3, max_size=6), position=st.integers(50, 900)),
}
