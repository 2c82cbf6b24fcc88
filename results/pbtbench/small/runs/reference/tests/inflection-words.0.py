"""Property-based tests for inflection 0.5.1 (inflection-words)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
from inflection import humanize, ordinal, ordinalize


def prop_ordinal_suffix(number: int) -> None:
    """The suffix follows the last digit, with 11-13 (by absolute value) taking th."""
    last_two = abs(number) % 100
    expected = "th" if 11 <= last_two <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(last_two % 10, "th")
    assert ordinal(number) == expected
    assert ordinalize(number) == f"{number}{expected}"


def prop_humanize_strips_only_trailing_id(word: str) -> None:
    """Every underscore or space becomes one space, except the underscore of a trailing _id."""
    word = word.replace("\n", "")  # any string, without the line break that `$` matches before
    kept = word[:-3] if word.endswith("_id") else word
    assert humanize(word).count(" ") == kept.count("_") + kept.count(" "), humanize(word)


from hypothesis import strategies as st

_PARTS = st.sampled_from(["author", "user", "_", "_id", "id", "entity", "Card", " ", "2"])

STRATEGIES = {
    "prop_ordinal_suffix": dict(number=st.integers(-10**6, 10**6).map(lambda n: n - n % 100 + 11 + n % 3)),
    "prop_humanize_strips_only_trailing_id": dict(word=st.lists(_PARTS, min_size=1, max_size=6).map("".join)),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_humanize_strips_only_trailing_id'])
def test_humanize_strips_only_trailing_id(word):
    prop_humanize_strips_only_trailing_id(word)
