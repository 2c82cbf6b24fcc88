from hypothesis import strategies as st

_numeric = st.integers(0, 120).map(str)
_word = st.sampled_from(["alpha", "beta", "rc", "x-y"])

STRATEGIES = {
    "prop_numeric_identifiers_compare_numerically": dict(
        a=st.lists(st.one_of(_numeric, _word), min_size=1, max_size=3).flatmap(
            lambda xs: st.just(xs + [str(d) for d in range(8, 11)][:1])),
        b=st.lists(st.one_of(_numeric, _word), min_size=1, max_size=3).flatmap(
            lambda xs: st.just(xs + ["10"]))),
    "prop_longer_prerelease_is_higher": dict(a=st.lists(st.one_of(_numeric, _word), min_size=1, max_size=3),
                                             extra=st.lists(st.one_of(_numeric, _word), min_size=1, max_size=2)),
    "prop_bump_build_increments_last_number": dict(prefix=st.lists(_word, max_size=2),
                                                   number=st.sampled_from([9, 99, 999, 19999])),
}
