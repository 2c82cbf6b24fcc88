"""MoCAttention: exact against brute-force and per-component references, padding-safe, its FLOPs counted."""

import math

import pytest
import torch
import torch.nn.functional as F

from proceedings.core.errors import ProceedingsError
from proceedings.moca.attention import MoCAttention, context_size
from proceedings.moca.costs import counted_flops


def block(n_points=8, k=2, sigma=2, mode="moca", router_bias=True, dim=16, heads=2, seed=0):
    torch.manual_seed(seed)
    return MoCAttention(dim, heads, n_points, k=k, sigma=sigma, mode=mode, router_bias=router_bias)


def projections(m, x):
    b, n, t, d = x.shape
    q, k, v = m.qkv(x).view(b, n, t, 3, m.heads, d // m.heads).unbind(3)
    return q, k, v


def brute_force(m, x, visible, bias=None):
    """Attention over the whole flattened N·T sequence with a boolean mask (B, NT, NT) and optional bias."""
    b, n, t, d = x.shape
    q, k, v = (z.reshape(b, n * t, m.heads, d // m.heads).transpose(1, 2) for z in projections(m, x))
    logits = q @ k.transpose(-1, -2) / math.sqrt(d // m.heads)
    if bias is not None:
        logits = logits + bias[:, None]
    logits = logits.masked_fill(~visible[:, None], float("-inf"))
    out = (logits.softmax(-1) @ v).transpose(1, 2).reshape(b, n, t, d)
    return m.out(out)


def per_component_reference(m, x):
    """For each (sample, component) in a Python loop: own tokens, top-k in full, others' summary tokens."""
    b, n, t, d = x.shape
    q, k, v = projections(m, x)
    s = m.scores(x, q, k, None, None)
    out = torch.zeros(b, n, t, d)
    for bi in range(b):
        for i in range(n):
            order = sorted((j for j in range(n) if j != i), key=lambda j: -float(s[bi, i, j].detach()))
            keys, values, bias = [k[bi, i]], [v[bi, i]], [torch.zeros(t)]
            for rank, j in enumerate(order):
                span = slice(None) if rank < m.k else slice(m.points, None)
                keys.append(k[bi, j, span])
                values.append(v[bi, j, span])
                bias.append(F.logsigmoid(s[bi, i, j]).expand(keys[-1].shape[0]))
            kk, vv, bb = torch.cat(keys), torch.cat(values), torch.cat(bias)
            logits = torch.einsum("thd,chd->htc", q[bi, i], kk) / math.sqrt(d // m.heads) + bb
            out[bi, i] = torch.einsum("htc,chd->thd", logits.softmax(-1), vv).reshape(t, d)
    return m.out(out)


def test_moca_equals_full_attention_with_k_at_least_n_minus_1_sigma_1_and_no_router_bias():
    n = 5
    m = block(n_points=4, k=n - 1, sigma=1, router_bias=False)
    x = torch.randn(2, n, m.tokens, 16)
    everything = torch.ones(2, n * m.tokens, n * m.tokens, dtype=torch.bool)
    assert (m(x) - brute_force(m, x, everything)).abs().max() < 1e-5
    full = block(n_points=4, k=n - 1, sigma=1, mode="full")
    full.load_state_dict(m.state_dict(), strict=False)
    assert (m(x) - full(x)).abs().max() < 1e-5


@pytest.mark.parametrize("k,sigma,n", [(1, 2, 6), (2, 4, 7), (3, 1, 5), (0, 8, 4)])
def test_routed_block_equals_a_per_component_reference_loop(k, sigma, n):
    m = block(n_points=8, k=k, sigma=sigma)
    x = torch.randn(2, n, m.tokens, 16)
    assert (m(x) - per_component_reference(m, x)).abs().max() < 1e-5


def routed_brute_force(m, x):
    """The routed block as masked attention over the whole N·T sequence, the router's bias added to the logits."""
    n = x.shape[1]
    q, k, _ = projections(m, x)
    s = m.scores(x, q, k, None, None)[0]
    t = m.tokens
    visible = torch.zeros(n * t, n * t, dtype=torch.bool)
    bias = torch.zeros(n * t, n * t)
    for i in range(n):
        chosen = set(s[i].detach().masked_fill(torch.eye(n, dtype=torch.bool)[i], -1e9).topk(m.k).indices.tolist())
        for j in range(n):
            cols = range(j * t, (j + 1) * t) if j == i or j in chosen else range(j * t + m.points, (j + 1) * t)
            visible[i * t:(i + 1) * t, list(cols)] = True
            if j != i:
                bias[i * t:(i + 1) * t, j * t:(j + 1) * t] = F.logsigmoid(s[i, j])
    return brute_force(m, x, visible[None], bias[None])


def test_routed_block_equals_brute_force_masked_attention_with_the_router_bias():
    m = block(n_points=8, k=2, sigma=4)
    x = torch.randn(1, 6, m.tokens, 16)
    assert (m(x) - routed_brute_force(m, x)).abs().max() < 1e-5


def test_the_router_gradient_through_the_bias_channel_equals_the_brute_force_one():
    m = block(n_points=8, k=2, sigma=4)
    x = torch.randn(1, 6, m.tokens, 16)
    grads = []
    for forward in (m, lambda z: routed_brute_force(m, z)):
        m.zero_grad()
        forward(x).pow(2).sum().backward()
        grads.append(torch.cat([m.route_q.weight.grad.flatten(), m.route_k.weight.grad.flatten()]))
    assert grads[0].abs().sum() > 0
    assert torch.allclose(grads[0], grads[1], atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("mode", ["moca", "topk-drop", "full"])
def test_a_batch_mixing_4_and_12_components_reproduces_each_sample_run_alone(mode):
    m = block(n_points=8, k=4, sigma=4, mode=mode)
    small, large = torch.randn(1, 4, m.tokens, 16), torch.randn(1, 12, m.tokens, 16)
    padded = torch.cat([torch.cat([small, torch.randn(1, 8, m.tokens, 16)], 1), large])
    valid = torch.zeros(2, 12, dtype=torch.bool)
    valid[0, :4], valid[1] = True, True
    together = m(padded, valid)
    assert (together[0, :4] - m(small)[0]).abs().max() < 1e-5
    assert (together[1] - m(large)[0]).abs().max() < 1e-5


def test_no_padded_component_enters_a_top_k():
    m = block(n_points=8, k=2, sigma=4)
    n = 10
    valid = torch.zeros(3, n, dtype=torch.bool)
    valid[0, :4], valid[1, :7], valid[2] = True, True, True
    scores = torch.randn(3, n, n) * 100
    scores[:, :, 4:] += 1000  # padded components would win on score alone
    _, owner = m.key_plan(scores, valid)
    t = m.tokens
    chosen = owner[:, :, t: t * (1 + m.k): t]  # the first token of each selected component
    for b in range(3):
        for i in range(int(valid[b].sum())):
            assert all(bool(valid[b, j]) for j in chosen[b, i].tolist())


def test_the_router_learns_through_the_log_sigmoid_bias():
    m = block(n_points=8, k=2, sigma=4)
    m(torch.randn(2, 6, m.tokens, 16)).pow(2).sum().backward()
    assert m.route_q.weight.grad.abs().sum() > 0 and m.route_k.weight.grad.abs().sum() > 0


def test_counted_flop_ratio_at_n_64_equals_the_analytic_context_ratio_with_the_bias_channel():
    n, points, k, sigma = 64, 32, 4, 8
    x = torch.randn(1, n, points + points // sigma + 1, 8)
    flops = {mode: counted_flops(MoCAttention(8, 2, points, k, sigma, mode), x.clone().requires_grad_())[1]
             for mode in ("full", "moca")}
    head = 8 // 2  # MoCA's matmuls carry one more channel per head: the learned router's logit bias
    analytic = context_size(n, points, k, sigma, "full") / context_size(n, points, k, sigma, "moca") * head / (head + 1)
    assert flops["moca"] > 0
    assert abs(flops["full"] / flops["moca"] / analytic - 1) < 0.05


@pytest.mark.parametrize("kwargs,message", [({"sigma": 3}, "must divide"), ({"k": -1}, "k must be >= 0"),
                                            ({"mode": "sparse"}, "unknown attention")])
def test_bad_block_arguments_are_refused_in_one_line(kwargs, message):
    with pytest.raises(ProceedingsError, match=message):
        MoCAttention(16, 2, 8, **{"k": 2, "sigma": 2, **kwargs})


def test_zero_components_are_refused():
    m = block()
    with pytest.raises(ProceedingsError, match="N = 0"):
        m(torch.randn(1, 0, m.tokens, 16))
