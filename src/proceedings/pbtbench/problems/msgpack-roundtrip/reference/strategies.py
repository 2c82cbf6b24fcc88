from hypothesis import strategies as st

STRATEGIES = {
    "prop_dict_roundtrip": dict(entries=st.lists(st.tuples(st.text(max_size=3), st.integers(0, 9)),
                                                 min_size=16, max_size=18, unique_by=lambda e: e[0])),
    "prop_int_roundtrip": dict(values=st.lists(st.sampled_from([-2**15, -2**15 - 1, -2**7, -2**31, 2**16, -1]), min_size=1, max_size=4)),
    "prop_text_roundtrip": dict(text=st.integers(256, 600).map(lambda n: "x" * n)),
    "prop_ext_roundtrip": dict(code=st.integers(0, 127), data=st.integers(256, 600).map(lambda n: bytes(n))),
    "prop_timestamp_roundtrip": dict(seconds=st.integers(2**34, 2**35 - 1), nanoseconds=st.integers(0, 10**9 - 1)),
    "prop_list_roundtrip": dict(values=st.integers(14, 18).flatmap(lambda n: st.lists(st.integers(0, 9), min_size=n, max_size=n))),
    "prop_unsigned_roundtrip": dict(value=st.sampled_from([2**32 - 1, 2**32, 2**32 + 1, 2**16, 2**64 - 1])),
    "prop_bytes_roundtrip": dict(data=st.integers(256, 600).map(lambda n: bytes(n))),
    "prop_timestamp_list_roundtrip": dict(stamps=st.lists(st.tuples(st.integers(2**32, 2**33 - 1), st.just(0)), min_size=1, max_size=3)),
}
