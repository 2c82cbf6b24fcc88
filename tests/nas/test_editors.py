"""The per-layer update rules, checked against their closed forms on random tensors."""

import torch

from proceedings.nas.editors import alphaedit_delta, memit_delta, nullspace_projector, rome_delta


def _random_problem(d=6, d_ff=10, n=3, seed=0):
    g = torch.Generator().manual_seed(seed)
    A = torch.randn(d_ff, 4 * d_ff, generator=g, dtype=torch.float64)
    return torch.randn(d_ff, n, generator=g), torch.randn(d, n, generator=g), A @ A.T / A.shape[1]


def test_memit_delta_is_the_least_squares_solution_with_covariance_penalty():
    K, R, C = _random_problem()
    expected = R.double() @ K.double().T @ torch.linalg.inv(50.0 * C + K.double() @ K.double().T)
    assert torch.allclose(memit_delta(K, R, C, 50.0), expected, atol=1e-10)


def test_rome_inserts_the_key_exactly():
    K, R, C = _random_problem(n=1)
    delta = rome_delta(K, R, C)
    assert torch.linalg.matrix_rank(delta) == 1
    assert torch.allclose(delta @ K.double(), R.double(), atol=1e-10)


def test_alphaedit_update_leaves_preserved_keys_untouched():
    K, R, _ = _random_problem(d_ff=10)
    # C_0 with six large eigenvalues (preserved knowledge) and four tiny ones (the null space)
    Q, _ = torch.linalg.qr(torch.randn(10, 10, dtype=torch.float64, generator=torch.Generator().manual_seed(1)))
    C = Q @ torch.diag(torch.tensor([5.0] * 6 + [1e-4] * 4, dtype=torch.float64)) @ Q.T
    P = nullspace_projector(C, threshold=2e-2)
    assert round(float(P.trace())) == 4
    delta = alphaedit_delta(K, R, P, torch.zeros(10, 10, dtype=torch.float64), alpha=10.0)
    preserved = Q[:, :6]
    assert delta.abs().max() > 1e-3
    assert (delta @ preserved).abs().max() < 1e-10  # Delta W k_p = 0 for every preserved key
