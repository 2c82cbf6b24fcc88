from hypothesis import strategies as st

_STATIC_NAMES = ["accept-charset", "accept-encoding", "accept-language", "accept-ranges", "accept", "age",
                 "allow", "authorization", "cache-control", "content-disposition", "content-encoding",
                 "content-length", "content-type", "cookie", "date", "etag", "expect", "expires", "from", "host",
                 "if-match", "last-modified", "link", "location", "range", "referer", "refresh", "server",
                 "set-cookie", "user-agent", "vary", "via", "www-authenticate"]
_letters = st.text("abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)

STRATEGIES = {
    "prop_sensitive_field_roundtrip": dict(name=st.sampled_from(_STATIC_NAMES), value=_letters, sensitive=st.just(True)),
    "prop_huffman_value_any_length": dict(name=_letters, value=st.text("abcdefghijklmnopqrstuvwxyz0123456789",
                                                                       min_size=260, max_size=600), huffman=st.just(True)),
    # names whose static-table index is below 15 (the pseudo-header fields), values long enough that
    # their Huffman-coded length takes several octets
    "prop_table_name_long_value": dict(name=st.sampled_from([":authority", ":method", ":path", ":scheme", ":status"]),
                                       value=st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=260, max_size=600)),
    "prop_table_name_new_value": dict(name=st.sampled_from(_STATIC_NAMES), value=_letters),
    "prop_repeat_after_many_fields": dict(names=st.lists(_letters, min_size=70, max_size=90), pick=st.integers(0, 3)),
    "prop_long_literal_name": dict(name=st.text("abcdefghijklmnopqrstuvwxyz-", min_size=130, max_size=400),
                                   value=_letters, then=_letters),
}
