"""core.verdict's interval ends: a margin judged with seeds uses the far end of the 95 % interval."""

import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.core.verdict import interval_end


def test_one_seed_uses_the_value_and_seeds_use_the_named_end():
    assert interval_end(None, "metrics.tau", 2.1, "low") == 2.1
    assert interval_end({"metrics.other": (0.0, 9.0)}, "metrics.tau", 2.1, "high") == 2.1
    intervals = {"metrics.tau": (1.9, 2.4)}
    assert interval_end(intervals, "metrics.tau", 2.1, "low") == 1.9
    assert interval_end(intervals, "metrics.tau", 2.1, "high") == 2.4


def test_an_unknown_end_is_a_one_line_error():
    with pytest.raises(ProceedingsError, match="'low' or 'high'"):
        interval_end({}, "metrics.tau", 2.1, "lower")
