from hypothesis import strategies as st

STRATEGIES = {
    "prop_sliding_window": dict(values=st.integers(25, 60).map(lambda n: list(range(n))), n=st.integers(21, 25)),
    "prop_running_min_window": dict(values=st.lists(st.integers(0, 9), min_size=6, max_size=30), maxlen=st.integers(2, 4)),
    "prop_running_median_window": dict(values=st.lists(st.integers(0, 9), min_size=6, max_size=30), maxlen=st.integers(2, 4)),
}
