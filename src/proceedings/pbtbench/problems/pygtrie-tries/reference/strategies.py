from hypothesis import strategies as st

_keys = st.text("αβγ", min_size=1, max_size=4)

STRATEGIES = {
    "prop_merge_holds_both": dict(ours=st.dictionaries(st.text("ab", min_size=1, max_size=4), st.integers(0, 9), max_size=6),
                                  theirs=st.dictionaries(st.text("ab", min_size=1, max_size=5), st.integers(10, 19), max_size=6)),
    "prop_deletions_match_dict": dict(keys=st.lists(_keys, min_size=5, max_size=20), deleted=st.lists(_keys, min_size=3, max_size=12)),
}
