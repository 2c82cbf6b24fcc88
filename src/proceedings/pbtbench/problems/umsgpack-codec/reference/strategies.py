import datetime

from hypothesis import strategies as st

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)

STRATEGIES = {
    "prop_binary_roundtrip": dict(data=st.integers(65533, 65538).map(lambda n: b"\x5a" * n)),
    "prop_ext_roundtrip": dict(code=st.integers(-128, 126), data=st.integers(256, 2000).map(lambda n: b"\x01" * n)),
    "prop_datetime_roundtrip": dict(moment=st.integers(-2, 2).map(lambda d: _EPOCH + datetime.timedelta(seconds=2**32 + d))),
    "prop_list_roundtrip": dict(values=st.integers(32760, 32780).map(lambda n: [7] * n)),
    "prop_unsigned_roundtrip": dict(value=st.integers(2**16 - 3, 2**16 + 3)),
    "prop_text_roundtrip": dict(text=st.integers(250, 260).map(lambda n: "t" * n)),
    "prop_short_binary_roundtrip": dict(data=st.integers(254, 258).map(lambda n: b"\x01" * n)),
    "prop_long_text_roundtrip": dict(words=st.integers(65533, 65538).map(lambda n: ["w" * n])),
}
