from hypothesis import strategies as st

STRATEGIES = {
    "prop_chunked_even": dict(length=st.integers(60, 400), n=st.integers(6, 14)),
    "prop_interleave_evenly": dict(lengths=st.lists(st.integers(1, 40), min_size=3, max_size=5)),
}
