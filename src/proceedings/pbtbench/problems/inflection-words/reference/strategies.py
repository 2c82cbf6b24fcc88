from hypothesis import strategies as st

_PARTS = st.sampled_from(["author", "user", "_", "_id", "id", "entity", "Card", " ", "2"])

STRATEGIES = {
    "prop_ordinal_suffix": dict(number=st.integers(-10**6, 10**6).map(lambda n: n - n % 100 + 11 + n % 3)),
    "prop_humanize_strips_only_trailing_id": dict(word=st.lists(_PARTS, min_size=1, max_size=6).map("".join)),
}
