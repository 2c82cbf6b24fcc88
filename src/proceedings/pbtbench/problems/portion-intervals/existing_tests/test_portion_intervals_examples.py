import portion as P


def test_union_merges_overlapping():
    assert P.closed(0, 2) | P.closed(1, 3) == P.closed(0, 3)


def test_membership():
    assert 1 in P.closed(0, 2) and 5 not in P.closed(0, 2)


def test_complement_of_closed():
    assert ~P.closed(0, 1) == P.open(-P.inf, 0) | P.open(1, P.inf)
