from hypothesis import strategies as st

_long = st.integers(30000, 31000).map(lambda n: list(range(n)))

STRATEGIES = {
    "prop_insert_at_end": dict(values=_long, extra=st.lists(st.integers(0, 9), min_size=1, max_size=3)),
    "prop_pop_at_positions": dict(values=_long, positions=st.lists(st.integers(12000, 29000), min_size=1, max_size=4)),
    "prop_pop_everything": dict(values=_long, pops=st.integers(11400, 11800)),
}
