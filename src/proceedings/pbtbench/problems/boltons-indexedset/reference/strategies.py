from hypothesis import strategies as st

def _prefix(lo, hi):
    return st.integers(lo, hi).map(lambda n: list(range(n)))

STRATEGIES = {
    "prop_getitem_matches_list": dict(values=_prefix(24, 40), removals=st.lists(st.integers(0, 20), min_size=2, max_size=2),
                                      probes=st.lists(st.integers(0, 22), min_size=10, max_size=20)),
    "prop_index_roundtrip": dict(values=_prefix(24, 40),
                                 removals=st.integers(3, 15).map(lambda i: [i, i + 1])),
    "prop_pop_last": dict(values=st.just(list(range(32))), removals=st.just([30, 31]), pops=st.integers(1, 5)),
    "prop_pop_index": dict(values=_prefix(5, 12), indices=st.lists(st.integers(0, 10), min_size=3, max_size=8)),
    "prop_bulk_difference": dict(values=_prefix(450, 600), removals=st.lists(st.integers(0, 449), min_size=1, max_size=1),
                                 bulk=st.integers(400, 440).map(lambda k: list(range(10, k)))),
}
