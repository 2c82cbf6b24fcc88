from heapdict import heapdict


def test_pops_in_priority_order():
    hd = heapdict()
    for key, priority in [("a", 3), ("b", 1), ("c", 2)]:
        hd[key] = priority
    assert hd.peekitem() == ("b", 1)
    assert [hd.popitem() for _ in range(3)] == [("b", 1), ("c", 2), ("a", 3)]


def test_decrease_key():
    hd = heapdict({"a": 3, "b": 1})
    hd["a"] = 0
    assert hd.popitem() == ("a", 0)
