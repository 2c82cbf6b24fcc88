from intervaltree import Interval, IntervalTree


def test_point_query():
    tree = IntervalTree([Interval(1, 3), Interval(2, 5)])
    assert tree.at(2) == {Interval(1, 3), Interval(2, 5)}
    assert tree.at(4.5) == {Interval(2, 5)}


def test_remove():
    tree = IntervalTree([Interval(1, 3), Interval(2, 5)])
    tree.remove(Interval(1, 3))
    assert tree.at(2.5) == {Interval(2, 5)}
