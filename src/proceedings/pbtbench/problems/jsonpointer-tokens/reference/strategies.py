from hypothesis import strategies as st

STRATEGIES = {
    "prop_parts_round_trip": dict(parts=st.lists(st.text(alphabet="~01/a", max_size=5), min_size=1, max_size=4)),
    "prop_array_index_tokens": dict(items=st.lists(st.integers(), min_size=12, max_size=20),
                                    token=st.from_regex(r"0[0-9]|[0-9]( |_[0-9])", fullmatch=True)),
}
