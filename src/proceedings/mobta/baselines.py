"""The mechanistic baseline (spec §2.5 (4)): the EPR person-day model with parameters fitted on the source
city's mobility and places drawn from the target's bus-derived activity field.

Reported beside the verdict, never judged: our simulator is itself EPR-style, so this baseline shares the
ground truth's functional form (issue 22). The LLM arms (bus-only, source-only, oracle) are task-vector
combinations and live in experiment.py.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from proceedings.mobta.fields import CityFields
from proceedings.mobta.simulator import DEFAULT, SLOTS_PER_HOUR, Behaviour, person_days
from proceedings.mobta.trajectories import Trajectory

WORK_SLOTS = 6 * SLOTS_PER_HOUR  # a stay of six hours or more away from home reads as work


def fit_behaviour(days: list[Trajectory], centres_km: np.ndarray, offset_km: float = 0.5) -> Behaviour:
    """Departure time, work probability and jump exponent estimated from person-days.

    Departure: the start slot of the first stay after home. Work: a day with a stay of >= 6 h away from
    home. Jump exponent: the maximum-likelihood power law of (d + offset) over the moves,
    beta = 1 + n / sum ln((d + offset) / offset).
    """
    departures, worked, moves = [], [], []
    for day in days:
        home = day.cells[0]
        if len(day.visits) > 1:
            departures.append(day.slots[1])
        ends = day.slots[1:] + [48]
        worked.append(any(cell != home and end - start >= WORK_SLOTS for (start, cell), end in zip(day.visits, ends)))
        xy = centres_km[day.cells]
        moves += list(np.linalg.norm(np.diff(xy, axis=0), axis=1))
    moves = np.asarray(moves)
    beta = 1 + len(moves) / max(np.log((moves + offset_km) / offset_km).sum(), 1e-9)
    departure = np.asarray(departures) / SLOTS_PER_HOUR
    return replace(DEFAULT, departure_mean_h=float(departure.mean()), departure_sd_min=float(60 * departure.std()),
                   work_probability=float(np.mean(worked)), jump_exponent=float(beta))


def epr_baseline(source_days: list[Trajectory], source_centres_km: np.ndarray, target: CityFields,
                 n: int, seed: int) -> tuple[list[Trajectory], Behaviour]:
    """Person-days in the target from the EPR model fitted on the source."""
    fitted = fit_behaviour(source_days, source_centres_km)
    return person_days(target, n, seed, fitted), fitted
