"""Property-based tests for more-itertools 11.2.1 (more-itertools-windows)."""
from hypothesis import given, settings


"""Reference properties (hidden): one per bug."""
import statistics
from more_itertools import running_median, running_min, sliding_window


def prop_sliding_window(values: list[int], n: int) -> None:
    """sliding_window yields every window of width n, in order."""
    n = 1 + (n - 1) % 1000  # any integer, folded into 1..1000
    expected = [tuple(values[i:i + n]) for i in range(len(values) - n + 1)]
    assert list(sliding_window(values, n)) == expected


def prop_running_min_window(values: list[int], maxlen: int) -> None:
    """running_min with maxlen is the minimum of the last maxlen values."""
    maxlen = 1 + (maxlen - 1) % 1000  # any integer, folded into 1..1000
    expected = [min(values[max(0, i - maxlen + 1):i + 1]) for i in range(len(values))]
    assert list(running_min(values, maxlen=maxlen)) == expected


def prop_running_median_window(values: list[int], maxlen: int) -> None:
    """running_median with maxlen is the median of the last maxlen values."""
    maxlen = 1 + (maxlen - 1) % 1000  # any integer, folded into 1..1000
    expected = [statistics.median(values[max(0, i - maxlen + 1):i + 1]) for i in range(len(values))]
    assert list(running_median(values, maxlen=maxlen)) == expected


from hypothesis import strategies as st

STRATEGIES = {
    "prop_sliding_window": dict(values=st.integers(25, 60).map(lambda n: list(range(n))), n=st.integers(21, 25)),
    "prop_running_min_window": dict(values=st.lists(st.integers(0, 9), min_size=6, max_size=30), maxlen=st.integers(2, 4)),
    "prop_running_median_window": dict(values=st.lists(st.integers(0, 9), min_size=6, max_size=30), maxlen=st.integers(2, 4)),
}


@settings(max_examples=200)
@given(**STRATEGIES['prop_sliding_window'])
def test_sliding_window(values, n):
    prop_sliding_window(values, n)
