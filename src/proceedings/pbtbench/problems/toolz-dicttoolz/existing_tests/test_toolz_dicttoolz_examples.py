from toolz import dissoc, merge_sorted, update_in


def test_merge_sorted():
    assert list(merge_sorted([1, 3, 5], [2, 4, 6])) == [1, 2, 3, 4, 5, 6]


def test_update_in():
    assert update_in({"a": {"b": 1}}, ["a", "b"], lambda x: x + 1) == {"a": {"b": 2}}


def test_dissoc():
    assert dissoc({"x": 1, "y": 2}, "y") == {"x": 1}
