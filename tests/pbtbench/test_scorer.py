"""Fail->Pass semantics (spec 2.5 and acceptance check 4)."""

import pytest

from proceedings.pbtbench.sandbox import Limits, Sandbox
from proceedings.pbtbench.scorer import Scorer
from proceedings.pbtbench.test_files import reference_test_file

FAILING = '''

def test_always_fails():
    assert False


def test_fails_only_on_clean():
    import inspect
    import cachetools
    source = inspect.getsource(cachetools.Cache.__setitem__)
    assert source.count("diffsize = itemsize") < 2
'''

HANGING = '''
import cachetools


def test_hangs_only_with_the_rr_bug():
    cache = cachetools.RRCache(4)
    for key in "abc":
        cache[key] = 1
    del cache["a"]
    try:
        del cache["c"]
    except IndexError:
        while True:
            pass
'''


def test_fail_to_pass_credits_exactly_the_reference_tests(lru_problem):
    code = reference_test_file(lru_problem, lru_problem.bugs).replace("max_examples=200", "max_examples=60") + FAILING
    report = Scorer(lru_problem, Sandbox(Limits(wall_s=20, cpu_s=20))).score(code)
    found = {b.bug: b for b in report.bugs}
    assert found["sized-update-evicts-self"].found and found["sized-update-evicts-self"].functions == ["test_sized_currsize"]
    assert found["sized-update-evicts-self"].rule == "conservative"
    assert found["rr-delete-stale-index"].functions == ["test_rr_deletions"]
    credited = {f for b in report.bugs for f in b.functions}
    assert "test_always_fails" not in credited and "test_fails_only_on_clean" not in credited
    assert set(report.false_positives) == {"test_always_fails", "test_fails_only_on_clean"}
    assert report.recall == 1.0 and report.valid and report.uses_hypothesis


@pytest.mark.slow
def test_a_bug_detected_only_through_a_timeout_is_not_credited(lru_problem):
    report = Scorer(lru_problem, Sandbox(Limits(wall_s=3, cpu_s=20))).score(HANGING)
    assert report.timeouts == ["test_hangs_only_with_the_rr_bug"]
    assert report.recall == 0.0


def test_unparsable_and_empty_files_score_zero_with_a_reason(lru_problem):
    scorer = Scorer(lru_problem, Sandbox())
    broken = scorer.score("def test_x(:\n")
    assert broken.recall == 0 and "does not parse" in broken.reason and broken.runs == 0
    empty = scorer.score("")
    assert empty.recall == 0 and empty.reason.startswith("no test collected") and not empty.valid
