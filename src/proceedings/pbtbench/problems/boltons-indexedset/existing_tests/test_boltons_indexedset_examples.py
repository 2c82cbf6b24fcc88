from boltons.setutils import IndexedSet


def test_order_and_uniqueness():
    s = IndexedSet([3, 1, 3, 2, 1])
    assert list(s) == [3, 1, 2]


def test_indexing_and_index():
    s = IndexedSet("abcde")
    s.remove("b")
    assert s[1] == "c" and s.index("d") == 2 and s[-1] == "e"


def test_pop():
    s = IndexedSet(range(5))
    assert s.pop() == 4 and s.pop(0) == 0 and list(s) == [1, 2, 3]
