from natsort import index_natsorted, natsort_keygen, natsorted, ns, order_by_index, realsorted


def test_numbers_inside_strings():
    assert natsorted(["num3", "num5", "num2", "num10"]) == ["num2", "num3", "num5", "num10"]


def test_signed_floats():
    assert realsorted(["a-5", "a+2", "a-1", "a0.5"]) == ["a-5", "a-1", "a0.5", "a+2"]
    assert natsort_keygen(alg=ns.REAL)("x1.5") == ("x", 1.5)


def test_index_and_order():
    words = ["b2", "a10", "a9"]
    index = index_natsorted(words)
    assert index == [2, 1, 0]
    assert order_by_index(words, index) == ["a9", "a10", "b2"]


def test_paths():
    assert natsorted(["f.tar.gz", "f-1.tar.gz", "f.tar"], alg=ns.PATH) == ["f.tar", "f.tar.gz", "f-1.tar.gz"]
