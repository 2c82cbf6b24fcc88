from hypothesis import strategies as st

_one_byte = st.integers(-128, 127)  # INTEGER with one content octet: 3 octets encoded
_two_bytes = st.integers(128, 32767)  # two content octets: 4 octets encoded

STRATEGIES = {
    "prop_octets_roundtrip": dict(data=st.binary(min_size=256, max_size=700)),
    "prop_sequence_roundtrip": dict(values=st.tuples(st.lists(_one_byte, min_size=40, max_size=40),
                                                     st.lists(_two_bytes, min_size=2, max_size=2))
                                    .flatmap(lambda parts: st.permutations(parts[0] + parts[1]))),  # 128 content octets
    "prop_context_tag_roundtrip": dict(number=st.integers(28, 34), data=st.binary(max_size=8)),
}
