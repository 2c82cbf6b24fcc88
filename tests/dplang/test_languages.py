"""Language families decide membership, inclusion, intersection and far elements exactly."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from proceedings.core.errors import ProceedingsError
from proceedings.dplang.distributions import AtomDistribution, ProgressionMixture
from proceedings.dplang.languages import (AtomSet, AtomUnion, Collection, MissingCapability, Progression,
                                          RegularLanguage, cantor_pair, cantor_unpair)

progressions = st.builds(Progression, st.integers(1, 12), st.integers(0, 30))


@settings(max_examples=60, deadline=None)
@given(progressions, progressions)
def test_progression_inclusion_and_intersection_match_brute_force(a, b):
    xs = np.arange(0, 4 * 12 * 12)
    in_a, in_b = a.contains_many(xs), b.contains_many(xs)
    assert a.is_subset(b) == bool(np.all(in_b[in_a]))
    both = a.intersect(b)
    expected = in_a & in_b
    assert (both is None) == (not expected.any())
    if both is not None:
        assert np.array_equal(both.contains_many(xs), expected)


atom_sets = st.builds(AtomSet, st.frozensets(st.integers(0, 12), max_size=5), st.integers(0, 10),
                      st.integers(1, 4), st.frozensets(st.integers(0, 3), max_size=3))


@settings(max_examples=60, deadline=None)
@given(atom_sets, atom_sets)
def test_eventually_periodic_atom_sets_decide_inclusion_and_intersection(a, b):
    ids = np.arange(200)
    in_a, in_b = a.contains_many(ids), b.contains_many(ids)
    assert a.is_subset(b) == bool(np.all(in_b[in_a]))
    assert np.array_equal(a.intersect(b).contains_many(ids), in_a & in_b)


def test_cantor_coding_round_trips_for_arrays_and_big_integers():
    atoms, payloads = np.arange(0, 3000, 7), np.arange(0, 3000, 7)[::-1]
    got_atoms, got_payloads = cantor_unpair(cantor_pair(atoms, payloads))
    assert np.array_equal(got_atoms, atoms) and np.array_equal(got_payloads, payloads)
    big = cantor_pair(5, 2**200 + 3)
    assert AtomUnion.of([5]).contains_many([big])[0] and not AtomUnion.of([4]).contains_many([big])[0]


def test_far_elements_lie_in_the_language_and_beyond_every_sample():
    rng = np.random.default_rng(0)
    sample = AtomDistribution({0: 0.5, 1: 0.5}).sample(1000, rng)
    union = AtomUnion.of([1, 2])
    x = union.far_element(80, rng)
    assert x in union and x > sample.max() and x >= 2**80
    progression = Progression(6, 3)
    y = progression.far_element(70, rng)
    assert y in progression and y >= 2**70


def test_regular_languages_via_automata_lib():
    ing, word = RegularLanguage("[a-z]*ing"), RegularLanguage("[a-z]+")
    assert ing.is_subset(word) and not word.is_subset(ing)
    assert ing.contains_many(["sing", "song", "Sing", 7]).tolist() == [True, False, False, False]
    rng = np.random.default_rng(1)
    far = ing.far_element(40, rng)
    assert len(far) >= 40 and far.endswith("ing")
    short = RegularLanguage("[a-z]{1,3}")
    assert not short.is_infinite() and ing.intersect(RegularLanguage("[a-z]*s")) is None
    # fraction of length-l words of [a-z]+ that contain an 'e': 1 - (25/26)^l
    contains_e = RegularLanguage("[a-z]*e[a-z]*")
    assert word.far_fraction_in([contains_e], 10) == pytest.approx(1 - (25 / 26) ** 10, rel=1e-12)


def test_collections_reject_bad_declarations_in_one_line():
    with pytest.raises(ProceedingsError, match="empty"):
        Collection.finite("none", [])

    def broken(i):
        if i > 2:
            raise KeyError(i)
        return Progression(i + 1)

    countable = Collection.countable("broken", broken)
    assert len(countable.prefix(2)) == 2
    with pytest.raises(ProceedingsError, match="declared countable but cannot enumerate language 3"):
        countable.prefix(3)
    with pytest.raises(ProceedingsError, match="returned str"):
        Collection.countable("strings", lambda i: "L").prefix(1)
    with pytest.raises(MissingCapability, match="one language family per collection"):
        Progression(2).is_subset(AtomUnion.of([0]))


def test_progression_mixture_atoms_have_exact_masses():
    mixture = ProgressionMixture(((0.8, 6, 0), (0.2, 6, 1)), stop=0.25)
    languages = [Progression(2), Progression(12)]
    atoms = mixture.atoms(languages)
    assert atoms.masses.sum() == pytest.approx(1.0, abs=1e-12)
    coverage_12 = atoms.masses @ atoms.patterns(languages)[:, 1]
    assert coverage_12 == pytest.approx(0.8 * (1 - 0.25) / (2 - 0.25), rel=1e-12)  # 6k with k even
    sample = mixture.sample(200_000, np.random.default_rng(2))
    assert Progression(12).contains_many(sample).mean() == pytest.approx(coverage_12, abs=0.005)
