from hypothesis import strategies as st

_atom = st.tuples(st.integers(0, 8), st.integers(0, 3), st.booleans(), st.booleans()).map(
    lambda t: (t[0], t[0] + t[1], t[2], t[3]))
_parts = st.lists(_atom, min_size=2, max_size=6)

STRATEGIES = {
    "prop_union_is_simplified": dict(parts=_parts),
    "prop_contains_value": dict(parts=st.integers(4, 6).map(lambda n: [(4 * i, 4 * i + 2, True, True) for i in range(n)]),
                               probes=st.lists(st.integers(10, 26), min_size=5, max_size=12)),
    "prop_intersection": dict(a=_parts, b=_parts),
}
