from boltons.ioutils import SpooledBytesIO, SpooledStringIO


def test_bytes_write_seek_read():
    f = SpooledBytesIO(max_size=64)
    f.write(b"Happy IO")
    f.seek(0)
    assert f.read() == b"Happy IO"
    assert len(f) == 8


def test_text_positions_count_code_points():
    f = SpooledStringIO(max_size=64)
    f.write("\u2014 Hey, an emdash!")
    assert f.tell() == 17
    f.seek(2)
    assert f.read(3) == "Hey"


def test_forced_rollover_keeps_the_data():
    f = SpooledBytesIO(max_size=64)
    f.write(b"abc")
    f.rollover()
    assert f.getvalue() == b"abc"
