from hypothesis import strategies as st

STRATEGIES = {
    "prop_lri_keeps_the_most_recently_set": dict(keys=st.integers(129, 200).map(lambda n: list(range(n)))),
    "prop_lru_reads_back_every_set": dict(keys=st.integers(129, 200).map(lambda n: list(range(n)))),
}
