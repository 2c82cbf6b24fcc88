import io

from boltons.jsonutils import JSONLIterator

DATA = b'{"a": 1}\n{"b": 2}\n{"c": 3}\n'


def test_forward_and_reverse():
    assert list(JSONLIterator(io.BytesIO(DATA))) == [{"a": 1}, {"b": 2}, {"c": 3}]
    assert list(JSONLIterator(io.BytesIO(DATA), reverse=True)) == [{"c": 3}, {"b": 2}, {"a": 1}]


def test_relative_seek_starts_at_a_line_boundary():
    assert list(JSONLIterator(io.BytesIO(DATA), rel_seek=0.5)) == [{"c": 3}]
