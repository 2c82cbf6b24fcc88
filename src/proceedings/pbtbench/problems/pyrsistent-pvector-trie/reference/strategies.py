from hypothesis import strategies as st

STRATEGIES = {
    "prop_many_appends": dict(values=st.integers(2081, 2300).map(lambda n: list(range(n)))),
    "prop_set_any_index": dict(values=st.integers(1100, 1400).map(lambda n: list(range(n))),
                               updates=st.lists(st.tuples(st.integers(512, 1023), st.integers(-9, -1)), min_size=1, max_size=4)),
}
