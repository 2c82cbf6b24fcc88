from hypothesis import strategies as st

_tokens = st.text("abcXYZ019-", min_size=1, max_size=6).filter(lambda t: t.replace("-", ""))

STRATEGIES = {
    "prop_informational_responses_arrive": dict(statuses=st.lists(st.sampled_from([100, 102, 103, 150, 199]), min_size=1, max_size=3)),
    "prop_trailers_survive": dict(trailers=st.lists(st.tuples(_tokens, _tokens), min_size=1, max_size=3), body=st.binary(min_size=1, max_size=8)),
    "prop_folded_header_lines": dict(parts=st.lists(_tokens, min_size=2, max_size=4), indent=st.integers(1, 4)),
    "prop_repeated_content_length": dict(length=st.integers(0, 50), copies=st.integers(2, 4)),
    "prop_continue_wait_ends_with_body": dict(expect=st.lists(st.sampled_from(["100-continue", "100-Continue", "x"]), min_size=1, max_size=2),
                                              body=st.lists(st.binary(min_size=1, max_size=5), min_size=1, max_size=3)),
}
