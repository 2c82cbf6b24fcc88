from more_itertools import factor, is_prime


def test_small_primes():
    assert [n for n in range(30) if is_prime(n)] == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]


def test_factor():
    assert list(factor(360)) == [2, 2, 2, 3, 3, 5]
    assert list(factor(1)) == []
    assert list(factor(1_000_000_007)) == [1_000_000_007]
