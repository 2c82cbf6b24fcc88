from natsort import natsort_keygen, natsorted, ns


def test_floats_and_exponents():
    assert natsorted(["1.5e3", "1.5e2", "x"], alg=ns.FLOAT) == ["1.5e2", "1.5e3", "x"]
    assert natsort_keygen(alg=ns.FLOAT)("v12.5") == ("v", 12.5)


def test_file_names():
    names = ["img12.png", "img10.png", "img2.png", "img1.png"]
    assert natsorted(names, alg=ns.PATH) == ["img1.png", "img2.png", "img10.png", "img12.png"]
    assert natsorted(["b/a.txt", "a/b.txt"], alg=ns.PATH) == ["a/b.txt", "b/a.txt"]
