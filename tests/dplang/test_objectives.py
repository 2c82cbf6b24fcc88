"""The agnostic objectives: attained best coverage, inclusion-minimal target, bad distributions."""

import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.dplang import families
from proceedings.dplang.distributions import AtomDistribution
from proceedings.dplang.objectives import agnostic_target


def test_targets_of_the_spec_families():
    assert families.two_language().target.indices == (1,)
    nested = families.nested()  # L2 and L3 both cover 0.7: the minimal one is the target
    assert nested.target.optimal == (2, 3) and nested.target.indices == (2,)
    progressions = families.arithmetic_progressions()  # 2N, 3N, 6N tie; 6N is inside both others
    assert progressions.target.optimal == (1, 2, 3) and progressions.target.indices == (3,)
    countable = families.countable_approach()
    assert countable.target.indices == (3,)
    assert countable.target.coverages[3] == pytest.approx(countable.target.best - 0.4 / 5)  # c_4 = c* - g/(4+1)


def test_unattained_best_coverage_is_an_error_not_a_silent_answer():
    countable = families.countable_approach()
    with pytest.raises(ProceedingsError, match="not attained"):
        # beyond L_2 coverages approach base + gap but L_1, L_2 fall short of it
        agnostic_target(countable.collection, countable.distribution, horizon=2, tail_sup=0.7)
    with pytest.raises(ProceedingsError, match="countable"):
        agnostic_target(countable.collection, countable.distribution)


@pytest.mark.parametrize("masses, message", [({0: 0.5, 1: 0.4}, "sum to 0.9"), ({0: 1.2, 1: -0.2}, ">= 0")])
def test_bad_masses_are_rejected(masses, message):
    with pytest.raises(ProceedingsError, match=message):
        AtomDistribution(masses)
    with pytest.raises(ProceedingsError):
        families.two_language(0.6, 0.3, 0.3)
