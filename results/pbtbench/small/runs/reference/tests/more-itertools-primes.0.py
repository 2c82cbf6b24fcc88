"""Property-based tests for more-itertools 11.2.1 (more-itertools-primes)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug. The oracle is a Miller-Rabin test with the first
thirteen prime bases, written here from its definition (exact below 3.3 * 10**24)."""
from math import prod

from more_itertools import factor

_BASES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)


def _prime(n: int) -> bool:
    if n < 2:
        return False
    if n in _BASES:
        return True
    if any(n % p == 0 for p in _BASES):
        return False
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in _BASES:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def prop_factor_into_primes(n: int) -> None:
    """factor(n) yields primes, ascending, whose product is n."""
    n = abs(n) % 10**15  # any integer, folded below 10**15 (Pollard's rho stays fast)
    factors = list(factor(n))
    assert factors == sorted(factors), (n, factors)
    assert prod(factors) == (n if n >= 2 else 1), (n, factors)
    assert all(_prime(p) for p in factors), (n, factors)


from hypothesis import strategies as st

STRATEGIES = {
    "prop_factor_into_primes": dict(n=st.integers(1, 2**12).map(lambda k: 211**2 * k)),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_factor_into_primes'])
def test_factor_into_primes(n):
    prop_factor_into_primes(n)
