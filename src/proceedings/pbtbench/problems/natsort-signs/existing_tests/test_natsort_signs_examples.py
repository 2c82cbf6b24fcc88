from natsort import natsorted, ns


def test_signed_integers():
    assert natsorted(["a-5", "a3", "a-1"], alg=ns.SIGNED) == ["a-5", "a-1", "a3"]


def test_archives():
    assert natsorted(["f10.tar.gz", "f9.tar.gz"], alg=ns.PATH) == ["f9.tar.gz", "f10.tar.gz"]
