from hypothesis import strategies as st

_names = st.sampled_from(["a", "b", "c"])

STRATEGIES = {
    "prop_update_in_keeps_siblings": dict(d=st.dictionaries(_names, st.dictionaries(_names, st.dictionaries(_names, st.integers(0, 9),
                                                                                                        min_size=1), min_size=2), min_size=1),
                                          path=st.tuples(_names, _names, _names)),
    "prop_dissoc_many": dict(d=st.dictionaries(st.integers(0, 9), st.integers(), min_size=3, max_size=8),
                             keys=st.lists(st.integers(0, 9), min_size=6, max_size=10)),
}
