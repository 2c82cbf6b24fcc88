"""Why the transfer effect can occur in the tiny setting, on data alone (no model): perfect learners of
each arm's training data, scored like the arms against the held-out target person-days.

The oracle's gate holds for perfect learners (the target's own person-days score at most half of the better
of the source's person-days and the target's bus trips read as person-days: there is a gap to close), and
the target's timetable carries where the target's people go, which the source's person-days lack (the
information MobTA's τ_bus^T brings)."""

import random
from dataclasses import replace
from types import SimpleNamespace

import pytest

from proceedings.mobta.experiment import (CONTROL_TASK, ORACLE_GAP, experiment_config, ideal_learners, length_limits,
                                         load_workload)
from proceedings.mobta.metrics import evaluate
from proceedings.mobta.trajectories import as_person_day


@pytest.fixture(scope="module")
def tiny():
    cfg = replace(experiment_config("tiny"), control=False)
    return cfg, load_workload(cfg, seed=0)


def test_a_perfect_oracle_leaves_a_gap_that_the_gate_accepts(tiny):
    cfg, work = tiny
    ideal = ideal_learners(work, cfg, seed=0)
    assert ideal["oracle"] <= ORACLE_GAP * min(ideal["source_only"], ideal["bus_only"])


def test_the_target_timetable_places_visits_better_than_the_source_person_days(tiny):
    cfg, work = tiny
    bus = [as_person_day(t) for t in random.Random(0).sample(work.target.bus_trips, cfg.samples)]
    from_timetable = evaluate(bus, work.real["eval"], work.bins)["location"]
    from_source = evaluate(work.mob_source[:cfg.samples], work.real["eval"], work.bins)["location"]
    assert from_timetable < from_source


def test_adding_the_control_task_leaves_the_sampling_limits_of_a_staged_run_as_they_were():
    sequences = {"bus_S": [[1] * 30], "bus_T": [[1] * 41], "mob_S": [[1] * 12], "mob_T": [[1] * 15]}
    plain = length_limits(SimpleNamespace(sequences=sequences), margin=8)
    with_control = length_limits(SimpleNamespace(sequences={**sequences, CONTROL_TASK: [[1] * 60]}), margin=8)
    assert plain == with_control == {"bus": 48, "mob": 22}
