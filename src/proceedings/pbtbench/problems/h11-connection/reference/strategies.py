from hypothesis import strategies as st

STRATEGIES = {
    "prop_chunked_body_any_split": dict(chunk_sizes=st.lists(st.integers(1, 20), min_size=2, max_size=6),
                                        pieces=st.lists(st.integers(1, 3), min_size=150, max_size=150)),
    "prop_request_head_any_split": dict(extra=st.lists(st.integers(0, 5), max_size=3),
                                        pieces=st.lists(st.integers(1, 2), min_size=300, max_size=300)),
    "prop_connection_close_token": dict(tokens=st.lists(st.sampled_from(["keep-alive", "close", "Close", "upgrade", "te"]),
                                                        min_size=1, max_size=3),
                                        body=st.binary(max_size=8)),
    "prop_head_response_has_no_body": dict(heads=st.lists(st.booleans(), min_size=1, max_size=4),
                                           lengths=st.lists(st.integers(1, 50), min_size=4, max_size=4)),
    "prop_pipelined_requests_any_split": dict(targets=st.tuples(st.integers(10**5, 10**6 - 1), st.integers(0, 9)).map(list),
                                              pieces=st.integers(156, 158).map(lambda k: [k])),
    "prop_http10_peer_gets_unframed_body": dict(http10=st.booleans(), chunks=st.lists(st.binary(min_size=1, max_size=8), min_size=1, max_size=4)),
    "prop_chunks_of_any_size": dict(chunks=st.lists(st.binary(min_size=256, max_size=2000), min_size=1, max_size=3)),
    "prop_expect_continue_only_http11": dict(http10=st.booleans(),
                                             expect=st.lists(st.sampled_from(["100-continue", "100-Continue", "foo"]), min_size=1, max_size=2)),
}
