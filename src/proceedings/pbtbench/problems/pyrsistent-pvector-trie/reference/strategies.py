from hypothesis import strategies as st

STRATEGIES = {
    "prop_many_appends": dict(values=st.integers(2081, 2300).map(lambda n: list(range(n)))),
    "prop_set_any_index": dict(values=st.integers(1100, 1400).map(lambda n: list(range(n))),
                               updates=st.lists(st.tuples(st.integers(512, 1023), st.integers(-9, -1)), min_size=1, max_size=4)),
    "prop_evolver_sets": dict(values=st.integers(1100, 1400).map(lambda n: list(range(n))),
                              updates=st.tuples(st.integers(0, 31), st.integers(-9, -1)).flatmap(lambda first: st.lists(
                                  st.tuples(st.integers(32, 1099), st.integers(-9, -1)), min_size=1, max_size=5).map(
                                  lambda rest: [first] + rest))),
}
