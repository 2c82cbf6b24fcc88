from hypothesis import strategies as st

_small = st.integers(0, 5)

STRATEGIES = {
    "prop_key_and_value_duplication_raises": dict(base=st.dictionaries(_small, _small, min_size=2), key=_small, value=_small),
    "prop_putall_fails_clean": dict(base=st.lists(st.tuples(_small, _small), min_size=5, max_size=8),
                                    items=st.lists(st.tuples(_small, _small), min_size=2, max_size=3)),
}
