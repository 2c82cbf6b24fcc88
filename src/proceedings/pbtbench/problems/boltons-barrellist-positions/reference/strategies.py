from hypothesis import strategies as st

_long = st.integers(30000, 31000).map(lambda n: list(range(n)))  # long enough that the insert splits it

STRATEGIES = {
    "prop_insert_at_positions": dict(values=_long, inserts=st.lists(st.tuples(st.integers(12000, 29000), st.integers(-9, -2)),
                                                                    min_size=1, max_size=4)),
    "prop_delete_at_positions": dict(values=_long, positions=st.lists(st.integers(12000, 29000), min_size=1, max_size=4)),
}
