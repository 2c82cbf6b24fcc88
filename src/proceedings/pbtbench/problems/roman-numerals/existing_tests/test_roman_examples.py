import pytest

from roman import InvalidRomanNumeralError, OutOfRangeError, fromRoman, toRoman


def test_known_values():
    assert toRoman(1994) == "MCMXCIV"
    assert toRoman(3888) == "MMMDCCCLXXXVIII"
    assert fromRoman("mcmxciv") == 1994


def test_zero_is_n():
    assert toRoman(0) == "N" and fromRoman("N") == 0


def test_negative_is_out_of_range():
    with pytest.raises(OutOfRangeError):
        toRoman(-1)


def test_repeated_subtraction_is_invalid():
    with pytest.raises(InvalidRomanNumeralError):
        fromRoman("IIX")
