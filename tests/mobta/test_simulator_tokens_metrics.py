"""The simulator keeps its parameters; the tokenisation is exact; the JSD behaves like a divergence."""

import json
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proceedings.core.errors import ProceedingsError
from proceedings.mobta.baselines import fit_behaviour
from proceedings.mobta.feeds import load_city
from proceedings.mobta.fields import city_fields
from proceedings.mobta.generation import Samples
from proceedings.mobta.metrics import MIN_VALID, Bins, day_values, evaluate, histogram_rows, jsd
from proceedings.mobta.simulator import DEFAULT, SHIFTED, SLOTS_PER_HOUR, person_days
from proceedings.mobta.synthetic_city import CityDesign
from proceedings.mobta.tokenization import InvalidSample, TrajTokenizer
from proceedings.mobta.trajectories import Trajectory

SMALL_CITY = CityDesign(size_km=10.0, headway_min=(20.0, 60.0))
N = 2000


@pytest.fixture(scope="module")
def fields():
    return city_fields(load_city("synthetic:polycentric:5", 16, SMALL_CITY), seed=0)


@pytest.fixture(scope="module")
def fitted(fields):
    return {name: fit_behaviour(person_days(fields, N, 1, b), fields.centres_km) for name, b in
            (("default", DEFAULT), ("shifted", SHIFTED))}


@pytest.mark.parametrize("name, params", [("default", DEFAULT), ("shifted", SHIFTED)])
def test_work_probability_and_mean_departure_are_within_3_sigma_of_the_parameters(fitted, name, params):
    got = fitted[name]
    p = params.work_probability
    assert abs(got.work_probability - p) <= 3 * np.sqrt(p * (1 - p) / N) + 0.01  # + the rare < 6 h work day
    sigma_slots = params.departure_sd_min / 30
    assert abs(got.departure_mean_h - params.departure_mean_h) * SLOTS_PER_HOUR <= 3 * sigma_slots / np.sqrt(N) + 0.05


def test_the_behaviour_shift_moves_departure_later_work_rarer_and_jumps_longer(fitted):
    default, shifted = fitted["default"], fitted["shifted"]
    assert shifted.departure_mean_h > default.departure_mean_h + 2
    assert shifted.work_probability < default.work_probability - 0.25
    assert shifted.jump_exponent < default.jump_exponent


visits = st.lists(st.tuples(st.integers(0, 47), st.integers(0, 255)), min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(visits)
def test_encode_decode_round_trips(raw):
    tokenizer = TrajTokenizer(16)
    bus = Trajectory(tuple(sorted(raw)))
    assert tokenizer.decode(tokenizer.encode(bus, "bus")) == ("bus", bus)
    day = Trajectory(tuple(dict(sorted(raw)).items()))  # one stay per slot
    assert tokenizer.decode(tokenizer.encode(day, "mob")) == ("mob", day)


@pytest.mark.parametrize("text, reason", [
    ("<mob> <t10> <c001> <t12> <c002>", "no <eos>"),
    ("<mob> <t10> <c001> <t09> <c002> <eos>", "time goes backwards"),
    ("<mob> <t10> <c001> <t10> <c002> <eos>", "two stays start in one slot"),
    ("<mob> <c001> <t10> <eos>", "expected a slot token"),
    ("<t10> <c001> <eos>", "does not start with"),
])
def test_samples_that_do_not_parse_are_invalid_with_their_reason(text, reason):
    with pytest.raises(InvalidSample, match=reason):
        TrajTokenizer(16).decode(text.split())


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0, 10), min_size=4, max_size=4), st.lists(st.floats(0, 10), min_size=4, max_size=4))
def test_jsd_is_zero_on_identical_histograms_symmetric_and_at_most_one(p, q):
    if sum(p) <= 0 or sum(q) <= 0:
        return
    assert jsd(p, p) == pytest.approx(0, abs=1e-12)
    assert jsd(p, q) == pytest.approx(jsd(q, p), abs=1e-12)
    assert 0 <= jsd(p, q) <= 1


def test_jsd_of_disjoint_histograms_is_one_and_identical_samples_score_zero(fields):
    assert jsd([1, 0], [0, 1]) == pytest.approx(1.0)
    days = person_days(fields, 200, 3)
    bins = Bins.for_city(fields.centres_km)
    assert all(v == pytest.approx(0, abs=1e-12) for v in evaluate(days, days, bins).values())


def test_fewer_than_50_valid_samples_is_an_error_not_a_number(fields):
    days = person_days(fields, 100, 3)
    with pytest.raises(ProceedingsError, match=f"at least {MIN_VALID}"):
        evaluate(days[:MIN_VALID - 1], days, Bins.for_city(fields.centres_km))


def test_histogram_rows_equal_numpy_histograms_of_each_days_values(fields):
    days = person_days(fields, 60, 4)
    bins = Bins.for_city(fields.centres_km)
    rows = histogram_rows(days, bins)
    for i, day in enumerate(days):
        for metric, values in day_values(day, bins).items():
            edges = bins.edges[metric]
            expected = np.histogram(np.clip(values, edges[0], edges[-1] - 1e-9), edges)[0] if values else 0
            assert np.array_equal(rows[metric][i], expected + np.zeros(len(edges) - 1))


def test_kept_samples_read_back_as_the_same_samples():
    kept = Samples("mob", [Trajectory(((0, 3), (16, 40), (35, 3)))], Counter({"no <eos>": 2}), tokens=17, wall_s=0.5)
    again = Samples.from_dict(json.loads(json.dumps(kept.to_dict())))
    assert again == kept and again.validity == pytest.approx(1 / 3)
