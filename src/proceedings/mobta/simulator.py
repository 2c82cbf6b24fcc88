"""Person-days from a d-EPR / TimeGeo-lite individual mobility model (spec §5; our design, not the paper's).

Every city shares the behaviour parameters (so the "bus -> mobility" shift transfers by construction, an
assumption of this benchmark); `SHIFTED` changes the target's departure time, work probability and jump
exponent to break that on purpose (`--behaviour-shift`). A person has a home drawn from the residential
field R and a workplace from A(x)·exp(-d/5 km); each day they leave home at N(08:00, 50 min), work
N(8.5 h, 1 h) with probability 0.7, make 0-2 other activities chosen by EPR (explore a new place with
probability rho·S^-gamma, jump length ∝ (d + 0.5 km)^-beta weighted by A at the destination; otherwise
return ∝ past visits), stay log-normal (median 1 h) at each, and go home for the night.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.mobta.fields import CityFields
from proceedings.mobta.trajectories import SLOTS_PER_DAY, Trajectory, merged

SLOTS_PER_HOUR = SLOTS_PER_DAY // 24


@dataclass(frozen=True)
class Behaviour:
    work_probability: float = 0.7
    departure_mean_h: float = 8.0
    departure_sd_min: float = 50.0
    work_hours_mean: float = 8.5
    work_hours_sd: float = 1.0
    explore_rho: float = 0.6  # d-EPR: P(explore) = rho * S^-gamma, S = distinct places so far
    explore_gamma: float = 0.21
    jump_exponent: float = 1.6  # P(jump of d km) ∝ (d + offset)^-beta
    jump_offset_km: float = 0.5
    work_scale_km: float = 5.0  # workplace ∝ A(x) exp(-d / scale)
    stay_median_h: float = 1.0  # other activities: log-normal stay
    stay_sigma: float = 0.6
    max_other_activities: int = 2
    days_min: int = 5  # days per simulated person, so repeated-visit statistics mean something
    days_max: int = 10

    def to_dict(self) -> dict:
        return asdict(self)


DEFAULT = Behaviour()
# --behaviour-shift: later departures, fewer work days, longer jumps in the target city.
SHIFTED = replace(DEFAULT, work_probability=0.35, departure_mean_h=10.5, jump_exponent=0.8)


def behaviour(shifted: bool) -> Behaviour:
    return SHIFTED if shifted else DEFAULT


def _distances(centres: np.ndarray) -> np.ndarray:
    return np.sqrt(((centres[:, None, :] - centres[None, :, :]) ** 2).sum(-1))


class _Person:
    """One simulated person's state: home, work, and the d-EPR visit memory."""

    def __init__(self, home: int, work: int):
        self.home, self.work = home, work
        self.visits = {home: 1, work: 1}

    def next_place(self, here: int, fields: CityFields, dist: np.ndarray, b: Behaviour, rng: np.random.Generator) -> int:
        explore = rng.random() < b.explore_rho * len(self.visits) ** -b.explore_gamma
        if explore:
            weight = fields.activity * (dist[here] + b.jump_offset_km) ** -b.jump_exponent
            weight[list(self.visits)] = 0.0
        if not explore or weight.sum() <= 0:
            weight = np.zeros(len(fields.activity))
            for place, count in self.visits.items():
                weight[place] = count
            weight[here] = 0.0
            if weight.sum() <= 0:
                return here
        place = int(rng.choice(len(weight), p=weight / weight.sum()))
        self.visits[place] = self.visits.get(place, 0) + 1
        return place


def _day(person: _Person, fields: CityFields, dist: np.ndarray, b: Behaviour, rng: np.random.Generator) -> tuple:
    """One day's stays as (start slot, cell): home from midnight, out, home for the night."""
    last = SLOTS_PER_DAY - 1
    slot = int(np.clip(round(SLOTS_PER_HOUR * b.departure_mean_h + rng.normal(0, b.departure_sd_min / 30)), 1, last))
    visits, here = [(0, person.home)], person.home
    works = rng.random() < b.work_probability
    if works:
        visits.append((slot, person.work))
        here = person.work
        person.visits[here] += 1
        slot += max(1, round(SLOTS_PER_HOUR * rng.normal(b.work_hours_mean, b.work_hours_sd)))
    others = rng.integers(0 if works else 1, b.max_other_activities + 1)
    for _ in range(others):
        if slot > last:
            break
        here = person.next_place(here, fields, dist, b, rng)
        visits.append((slot, here))
        stay = rng.lognormal(math.log(SLOTS_PER_HOUR * b.stay_median_h), b.stay_sigma)
        slot += max(1, round(stay))
    if slot <= last:
        visits.append((slot, person.home))
    return merged(visits)


def person_days(fields: CityFields, n: int, seed: int, b: Behaviour = DEFAULT) -> list[Trajectory]:
    """n person-days (several per person), seeded."""
    if n < 1:
        raise ProceedingsError(f"number of person-days must be positive, got {n}")
    rng = np.random.default_rng(seed)
    dist = _distances(fields.centres_km)
    days: list[Trajectory] = []
    uid = 0
    while len(days) < n:
        home = int(rng.choice(len(fields.residential), p=fields.residential))
        work_weight = fields.activity * np.exp(-dist[home] / b.work_scale_km)
        work_weight[home] = 0.0
        person = _Person(home, int(rng.choice(len(work_weight), p=work_weight / work_weight.sum())))
        for day in range(int(rng.integers(b.days_min, b.days_max + 1))):
            days.append(Trajectory(_day(person, fields, dist, b, rng), uid, day))
        uid += 1
    return days[:n]
