"""The latent path: exact box occupancy, a component VAE that learns it, marching cubes back to a mesh."""

import numpy as np
import pytest
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.moca.data.procedural import Part, generate
from proceedings.moca.latents import LatentCodec
from proceedings.moca.vae import ComponentVAE, VAEConfig, extract_mesh, inside_box, occupancy_batch, train_vae

TINY = VAEConfig(surface_points=64, latents=4, latent_dim=4, dim=32, heads=2, frequencies=4)


def test_box_occupancy_is_exact_for_a_turned_box():
    turn = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])  # 90 degrees about z
    part = Part("plank", np.array([0.2, 0.0, 0.0]), np.array([0.5, 0.1, 0.05]), turn)
    xyz = np.array([[0.2, 0.0, 0.0], [0.2, 0.49, 0.0], [0.2, 0.51, 0.0], [0.65, 0.0, 0.0], [0.29, 0.0, 0.0]])
    assert inside_box(part, xyz).tolist() == [True, True, False, False, True]


def test_the_encoder_packs_any_point_count_into_the_same_latent_set_and_refuses_fewer_than_3_points():
    vae = ComponentVAE(TINY)
    for count in (3, 64, 200):
        mean, logvar = vae.encode(torch.randn(2, count, 3))
        assert mean.shape == logvar.shape == (2, TINY.latents, TINY.latent_dim)
    with pytest.raises(ProceedingsError, match="at least 3 surface points"):
        vae.encode(torch.randn(1, 2, 3))


@pytest.mark.slow
def test_the_vae_learns_a_seat_and_marching_cubes_gives_a_mesh_around_it():
    seat = generate("chair", 1, (6, 6), 8, seed=0)[0].parts[0]
    vae, losses = train_vae([seat], TINY, steps=150, batch=4, queries=512, lr=3e-3)
    assert np.mean(losses[-10:]) < 0.5 * np.mean(losses[:10])
    points, queries, inside = occupancy_batch([seat], TINY, 2048, np.random.default_rng(5))
    mean, _ = vae.encode(points)
    assert ((vae.decode(mean, queries) > 0) == inside).float().mean() > 0.9
    mesh = extract_mesh(vae, mean[0], resolution=24, low=seat.center - seat.half - 0.2, high=seat.center + seat.half + 0.2)
    assert np.abs(mesh.bounds - [seat.center - seat.half, seat.center + seat.half]).max() < 0.3
    points = LatentCodec(vae, 1.0).decode(mean.numpy(), 16, resolution=48)  # the latent path's way back to points
    assert points.shape == (1, 16, 3) and np.abs(points.mean(1)[0] - seat.center).max() < 0.3
