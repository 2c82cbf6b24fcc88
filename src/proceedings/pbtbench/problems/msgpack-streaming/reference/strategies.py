from hypothesis import strategies as st

STRATEGIES = {
    "prop_feed_in_pieces": dict(values=st.lists(st.text(min_size=40, max_size=60), min_size=2, max_size=4),
                                chunk=st.integers(5, 40)),
    "prop_file_like_read_size": dict(values=st.lists(st.lists(st.integers(0, 2**40), min_size=3, max_size=8), min_size=3, max_size=6),
                                     read_size=st.integers(1, 7)),
}
