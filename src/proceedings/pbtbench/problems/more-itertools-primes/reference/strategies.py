from hypothesis import strategies as st

STRATEGIES = {
    "prop_factor_into_primes": dict(n=st.integers(1, 2**12).map(lambda k: 211**2 * k)),
}
