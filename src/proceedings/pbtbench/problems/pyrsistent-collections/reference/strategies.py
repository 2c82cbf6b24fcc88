from hypothesis import strategies as st

STRATEGIES = {
    "prop_append_then_index": dict(values=st.integers(1057, 1300).map(lambda n: list(range(n)))),
    "prop_evolver_leaves_original": dict(values=st.integers(40, 100).map(lambda n: list(range(n))),
                                         updates=st.lists(st.tuples(st.integers(0, 31), st.integers(-5, -1)),
                                                          min_size=1, max_size=5)),
    "prop_evolver_sets_many": dict(values=st.integers(100, 200).map(lambda n: list(range(n))),
                                   updates=st.lists(st.tuples(st.integers(0, 63), st.integers(-9, -1)), min_size=2, max_size=8)),
    "prop_evolver_append_delete": dict(values=st.lists(st.integers(0, 9), max_size=5),
                                       ops=st.lists(st.tuples(st.booleans(), st.integers(0, 3)), min_size=3, max_size=12)),
}
