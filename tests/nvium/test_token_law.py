"""The deferred sampler's tokens and exits follow the mixture's law: a chi-squared test over 20,000 draws.

Equality with the full-depth reference (test_sampler.py) cannot catch a wrong law that both samplers
share, such as drawing the token with u**3 in `sample_tokens`; this test does, and proves it can.
"""

import torch
from scipy.stats import chi2

from proceedings.nvium import sampler
from proceedings.nvium.batched_sampler import BatchedDeferredSampler
from proceedings.nvium.mixture import mixture_log_probs
from tests.nvium.conftest import small_model

SEQUENCES, STEPS = 1000, 20  # 20,000 draws
ALPHA = 1e-3  # a correct sampler fails one run in a thousand


def chi2_p_value(observed: torch.Tensor, expected: torch.Tensor, min_expected: float = 5.0) -> float:
    """Pearson's test, categories with fewer than `min_expected` expected draws pooled into one.

    The draws come from different distributions (one per position); summed, their counts have a
    smaller covariance than one multinomial of the averaged law, so the p-value is conservative."""
    small = expected < min_expected
    observed = torch.cat([observed[~small], observed[small].sum().reshape(1)])
    expected = torch.cat([expected[~small], expected[small].sum().reshape(1)])
    statistic = ((observed - expected) ** 2 / expected.clamp(min=1e-12)).sum().item()
    return float(chi2.sf(statistic, df=len(expected) - 1))


def law_p_values(model, sequences: int = SEQUENCES) -> tuple[float, float]:
    """Sample `sequences` x 20 tokens, then test tokens and exits against the mixture at every position."""
    prompts = [[(7 * b + i) % 256 for i in range(4)] for b in range(sequences)]
    out = BatchedDeferredSampler(model, max_pending=3).generate(prompts, STEPS, seeds=list(range(sequences)))
    ids = torch.tensor([p + t[:-1] for p, t in zip(prompts, out.tokens)])
    with torch.no_grad():
        forward = model(ids)
        at = slice(len(prompts[0]) - 1, None)  # the positions that predicted the sampled tokens
        token_probs = mixture_log_probs(forward.exit_logits, forward.log_weights)[:, at].exp().double()
        exit_probs = forward.log_weights[:, at].exp().double()
    tokens, exits = torch.tensor(out.tokens), torch.tensor(out.exits)
    observed_tokens = torch.bincount(tokens.flatten(), minlength=256).double()
    observed_exits = torch.bincount(exits.flatten(), minlength=model.config.n_exits).double()
    return (chi2_p_value(observed_tokens, token_probs.sum((0, 1))),
            chi2_p_value(observed_exits, exit_probs.sum((0, 1))))


def test_tokens_and_exits_follow_the_mixture_distribution():
    token_p, exit_p = law_p_values(small_model())
    assert token_p > ALPHA and exit_p > ALPHA, (token_p, exit_p)


def test_drawing_tokens_with_u_cubed_fails_the_test(monkeypatch):
    right = sampler.sample_tokens
    monkeypatch.setattr("proceedings.nvium.batched_sampler.sample_tokens",
                        lambda logits, temperature, u: right(logits, temperature, u ** 3))
    token_p, _ = law_p_values(small_model(), sequences=SEQUENCES // 5)  # a fifth of the draws suffices
    assert token_p < 1e-6
