from multiset import Multiset


def test_len_is_sum_of_multiplicities():
    ms = Multiset("aab")
    assert len(ms) == 3 and ms["a"] == 2 and ms["z"] == 0


def test_discard_more_than_present():
    ms = Multiset("aab")
    assert ms.discard("a", 5) == 2
    assert sorted(ms) == ["b"]


def test_union_update_keeps_maximum():
    ms = Multiset("aab")
    ms.union_update("bc")
    assert sorted(ms) == ["a", "a", "b", "c"]
