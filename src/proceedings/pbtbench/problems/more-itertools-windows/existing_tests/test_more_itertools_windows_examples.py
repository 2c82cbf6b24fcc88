from more_itertools import running_median, running_min, sliding_window


def test_sliding_window():
    assert list(sliding_window(range(6), 4)) == [(0, 1, 2, 3), (1, 2, 3, 4), (2, 3, 4, 5)]


def test_running_min():
    assert list(running_min([4, 3, 7, 0, 8], maxlen=3)) == [4, 3, 3, 0, 0]


def test_running_median():
    assert list(running_median([5.0, 9.0, 4.0, 12.0, 8.0, 9.0])) == [5.0, 7.0, 5.0, 7.0, 8.0, 8.5]
