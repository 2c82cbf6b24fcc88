import umsgpack


def test_ext_round_trips():
    value = umsgpack.Ext(-5, b"\x01" * 300)
    assert umsgpack.unpackb(umsgpack.packb(value)) == value


def test_compatibility_mode_packs_raw():
    umsgpack.compatibility = True
    try:
        assert umsgpack.packb([u"some string", b"some bytes"]) == b"\x92\xabsome string\xaasome bytes"
        assert umsgpack.unpackb(umsgpack.packb(b"x" * 40)) == b"x" * 40
    finally:
        umsgpack.compatibility = False
