from bidict import OrderedBidict, bidict


def test_inverse():
    b = bidict({"H": "hydrogen"})
    assert b.inverse["hydrogen"] == "H"


def test_overwrite_key():
    b = bidict({1: "a"})
    b[1] = "b"
    assert dict(b) == {1: "b"} and dict(b.inverse) == {"b": 1}


def test_ordered():
    b = OrderedBidict([(1, "a"), (2, "b")])
    assert list(b) == [1, 2]
