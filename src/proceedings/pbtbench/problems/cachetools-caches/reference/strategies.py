from hypothesis import strategies as st

STRATEGIES = {
    "prop_sized_currsize": dict(maxsize=st.integers(4, 6),
                                ops=st.lists(st.tuples(st.sampled_from("abc"), st.integers(1, 3)), min_size=4, max_size=20)),
    "prop_accepts_up_to_maxsize": dict(maxsize=st.integers(1, 20),
                                       sizes=st.lists(st.integers(0, 20), min_size=5, max_size=20)),
    "prop_lfu_evicts_least_frequent": dict(maxsize=st.integers(2, 4),
                                           ops=st.lists(st.tuples(st.booleans(), st.sampled_from("abcdef")), min_size=10, max_size=40)),
    "prop_rr_deletions": dict(maxsize=st.integers(3, 6), ops=st.lists(st.tuples(st.booleans(), st.integers(0, 7)), min_size=10, max_size=40)),
    "prop_typed_keyword_types": dict(calls=st.lists(st.tuples(st.booleans(), st.integers(0, 1), st.integers(0, 1),
                                                              st.booleans(), st.booleans()), min_size=2, max_size=8)),
    "prop_ttl_copy_expires_like_original": dict(ttl=st.integers(3, 6),
                                                ops=st.lists(st.tuples(st.sampled_from([0, 0, 1, 1, 2]), st.integers(0, 3)), min_size=10, max_size=25),
                                                later=st.lists(st.just(1), min_size=12, max_size=12)),
    "prop_tlru_len_tracks_expiry": dict(ops=st.lists(st.one_of(st.tuples(st.just(0), st.integers(0, 7), st.integers(5, 40)),
                                                               st.tuples(st.just(0), st.integers(0, 7), st.integers(5, 40)),
                                                               st.tuples(st.just(1), st.just(0), st.integers(1, 2))),
                                                     min_size=60, max_size=100)),
}
