from hypothesis import strategies as st

STRATEGIES = {
    # documents with a field whose name reads like a nested path, and searches for both spellings, in either order
    "prop_equality_searches_match_a_scan": dict(
        documents=st.lists(st.integers(0, 3).map(lambda v: {"a.b": v}), min_size=1, max_size=5),
        searches=st.tuples(st.integers(0, 3), st.booleans()).map(
            lambda t: [(["a.b"], t[0]), (["a", "b"], t[0])][::1 if t[1] else -1])),
}
