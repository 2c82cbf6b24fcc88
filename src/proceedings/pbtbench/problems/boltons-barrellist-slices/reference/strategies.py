from hypothesis import strategies as st

STRATEGIES = {
    "prop_slice_assignment_matches_list": dict(
        values=st.integers(30000, 31000).map(lambda n: list(range(n))), insert_at=st.integers(0, 100),
        start=st.integers(1000, 5000), stop=st.integers(12000, 16000),
        replacement=st.lists(st.integers(-9, -2), max_size=5)),
}
