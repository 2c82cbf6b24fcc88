from hypothesis import strategies as st

_numeric = st.integers(0, 120).map(str)
_word = st.sampled_from(["alpha", "beta", "rc", "x-y"])

STRATEGIES = {
    "prop_numeric_identifiers_compare_numerically": dict(
        pairs=st.lists(st.tuples(st.integers(0, 120), st.integers(0, 120)), min_size=1, max_size=3).map(
            lambda ps: ps + [(9, 10)])),
    "prop_longer_prerelease_is_higher": dict(a=st.lists(st.one_of(_numeric, _word), min_size=1, max_size=3),
                                             extra=st.lists(st.one_of(_numeric, _word), min_size=1, max_size=2)),
    "prop_bump_build_increments_last_number": dict(prefix=st.lists(_word, max_size=2),
                                                   number=st.sampled_from([9, 99, 999, 19999])),
}
