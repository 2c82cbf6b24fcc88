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


@settings(max_examples=200)
@given(word=...)
def test_humanize_strips_only_trailing_id(word: str):
    prop_humanize_strips_only_trailing_id(word)
