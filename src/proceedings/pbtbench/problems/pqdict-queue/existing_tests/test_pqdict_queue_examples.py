from pqdict import nlargest, pqdict


def test_min_queue_pops_smallest_first():
    pq = pqdict({"a": 3, "b": 1, "c": 2})
    assert list(pq.popkeys()) == ["b", "c", "a"]


def test_update_moves_item_to_top():
    pq = pqdict({"a": 3, "b": 1, "c": 4, "d": 5})
    pq["d"] = 0
    assert pq.top() == "d"


def test_nlargest():
    assert nlargest(2, {"a": 1, "b": 5, "c": 3}) == ["b", "c"]
