from more_itertools import chunked_even, interleave_evenly


def test_chunked_even():
    assert list(chunked_even(range(10), 4)) == [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]


def test_interleave_evenly():
    assert list(interleave_evenly([[1, 2, 3, 4, 5], ["a", "b"]])) == [1, 2, "a", 3, 4, "b", 5]
