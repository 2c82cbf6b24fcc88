from more_itertools import peekable, seekable


def test_peek_does_not_advance():
    p = peekable(["a", "b"])
    assert p.peek() == "a" and next(p) == "a" and next(p) == "b"
    assert p.peek("hi") == "hi"


def test_indexing_caches():
    p = peekable(range(5))
    assert p[2] == 2 and next(p) == 0


def test_seek_to_zero_resets():
    s = seekable(str(i) for i in range(5))
    assert [next(s) for _ in range(3)] == ["0", "1", "2"]
    s.seek(0)
    assert next(s) == "0"
