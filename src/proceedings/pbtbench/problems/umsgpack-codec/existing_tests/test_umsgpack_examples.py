import datetime

import umsgpack


def test_roundtrip_small_values():
    for value in [None, True, 1, -1, 2**40, 1.5, "abc", b"xyz", [1, 2], {"a": 1}]:
        assert umsgpack.unpackb(umsgpack.packb(value)) == value


def test_ext():
    value = umsgpack.Ext(5, b"abc")
    assert umsgpack.unpackb(umsgpack.packb(value)) == value


def test_datetime():
    moment = datetime.datetime(2024, 5, 17, 12, 30, tzinfo=datetime.timezone.utc)
    assert umsgpack.unpackb(umsgpack.packb(moment)) == moment
