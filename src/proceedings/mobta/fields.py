"""Latent activity and residential fields of a city, on its grid (spec §5, "real feeds").

A(x) = kernel density of stops weighted by trips per stop (bandwidth 0.8 km), R(x) = the same with weight
sqrt(trips per stop) and bandwidth 2 km; both are multiplied by a seeded log-normal random field, so
the simulated "truth" is not a deterministic function of the timetable.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from proceedings.mobta.city import City


@dataclass(frozen=True)
class FieldParams:
    activity_bandwidth_km: float = 0.8
    residential_bandwidth_km: float = 2.0
    noise_sigma: float = 0.5  # log-normal field: exp(sigma * smoothed unit normal)
    noise_length_km: float = 2.0  # correlation length of the random field


@dataclass
class CityFields:
    activity: np.ndarray  # (G*G,), sums to 1
    residential: np.ndarray  # (G*G,), sums to 1
    centres_km: np.ndarray  # (G*G, 2)


def _kernel_density(points: np.ndarray, weights: np.ndarray, at: np.ndarray, bandwidth: float) -> np.ndarray:
    squared = ((at[:, None, :] - points[None, :, :]) ** 2).sum(-1)  # (cells, stops)
    return (np.exp(-squared / (2 * bandwidth ** 2)) * weights[None, :]).sum(1)


def _lognormal_field(centres: np.ndarray, params: FieldParams, rng: np.random.Generator) -> np.ndarray:
    """exp(sigma * z) with z a unit-variance normal field smoothed over noise_length_km."""
    white = rng.standard_normal(len(centres))
    kernel = np.exp(-((centres[:, None, :] - centres[None, :, :]) ** 2).sum(-1) / (2 * params.noise_length_km ** 2))
    smooth = kernel @ white
    smooth = (smooth - smooth.mean()) / (smooth.std() + 1e-12)
    return np.exp(params.noise_sigma * smooth)


def city_fields(city: City, seed: int, params: FieldParams = FieldParams()) -> CityFields:
    """Activity and residential densities over the city's cells, seeded."""
    rng = np.random.default_rng(seed)
    centres = city.cell_centres_km()
    trips = city.trips_per_stop
    activity = _kernel_density(city.stops_km, trips, centres, params.activity_bandwidth_km)
    residential = _kernel_density(city.stops_km, np.sqrt(trips), centres, params.residential_bandwidth_km)
    activity = activity * _lognormal_field(centres, params, rng) + 1e-12
    residential = residential * _lognormal_field(centres, params, rng) + 1e-12
    return CityFields(activity / activity.sum(), residential / residential.sum(), centres)
