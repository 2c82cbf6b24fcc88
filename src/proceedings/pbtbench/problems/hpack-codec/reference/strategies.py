from hypothesis import strategies as st

_names = st.sampled_from([b"x-a", b"x-b", b"content-type", b"accept"])
_values = st.sampled_from([b"1", b"2", b"text/html", b"v"])

STRATEGIES = {
    "prop_integer_roundtrip": dict(value=st.integers(0, 3).flatmap(lambda k: st.sampled_from([
        (2 ** n - 1) + 128 * 128 ** k for n in range(1, 9)])), prefix_bits=st.integers(1, 8)),
    "prop_header_list_limit": dict(limit=st.sampled_from([36, 70, 72, 108]),
                                   headers=st.lists(st.tuples(st.sampled_from([b"a", b"bb"]), st.sampled_from([b"", b"c", b"dd"])),
                                                    min_size=1, max_size=3)),
}
