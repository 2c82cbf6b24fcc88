from hypothesis import strategies as st

STRATEGIES = {
    "prop_ext_roundtrip_any_size": dict(code=st.integers(0, 126), data=st.integers(65536, 70000).map(lambda n: b"\x02" * n)),
    "prop_compatibility_roundtrip": dict(data=st.integers(65534, 65538).map(lambda n: b"\x03" * n), compatible=st.just(True)),
}
