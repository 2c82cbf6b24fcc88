"""Lossless sampling: at temperature 1, top-k 20, Orthrus's tokens 2 and 3 have the AR model's marginals
(chi-squared against the exact marginals, computed by enumerating the filtered distributions)."""

import pytest
import torch
from scipy.stats import chisquare

from proceedings.core.speculative import target_probs
from proceedings.orthrus.model import OrthrusModel

SEEDS, TOP_K = 4000, 20


def _exact_marginals(base, prompt: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
    """P(token 2) and P(token 3) under AR sampling with the same filter, by enumeration (batched forwards)."""
    with torch.inference_mode():
        p1 = target_probs(base(input_ids=torch.tensor([prompt])).logits[0, -1], 1.0, TOP_K)
        first = p1.nonzero()[:, 0]
        rows = torch.tensor([prompt])[[0] * len(first)]
        p2_given = target_probs(base(input_ids=torch.cat([rows, first[:, None]], 1)).logits[:, -1], 1.0, TOP_K)
        marginal2 = p1[first] @ p2_given
        pairs = [(a, b) for i, a in enumerate(first.tolist()) for b in p2_given[i].nonzero()[:, 0].tolist()]
        weights = torch.tensor([p1[a] * p2_given[first.tolist().index(a), b] for a, b in pairs])
        ids = torch.tensor([prompt + [a, b] for a, b in pairs])
        marginal3 = weights @ target_probs(base(input_ids=ids).logits[:, -1], 1.0, TOP_K)
    return marginal2, marginal3


def _chi2_p(counts: torch.Tensor, expected: torch.Tensor) -> float:
    """Chi-squared goodness of fit, bins expecting fewer than 5 draws pooled into one."""
    expected = expected * counts.sum()
    small = expected < 5
    observed, wanted = counts[~small].double(), expected[~small].double()
    if expected[small].sum() > 0:
        observed = torch.cat([observed, counts[small].sum()[None].double()])
        wanted = torch.cat([wanted, expected[small].sum()[None].double()])
    wanted = wanted * observed.sum() / wanted.sum()
    return float(chisquare(observed.numpy(), wanted.numpy()).pvalue)


@pytest.mark.slow
def test_sampled_tokens_2_and_3_follow_the_ar_marginals_over_4000_seeds():
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    base = LlamaForCausalLM(LlamaConfig(vocab_size=48, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                                        num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=64,
                                        eos_token_id=None)).eval()  # no token ends the text early
    model = OrthrusModel.from_base(base, block_size=4)
    with torch.no_grad():  # a view whose drafts differ from the AR view's, so rejections happen
        for p in model.view.parameters():
            p.add_(0.2 * torch.randn_like(p))
    prompt = [5, 9, 14, 3, 22]
    counts2, counts3 = torch.zeros(48), torch.zeros(48)
    for seed in range(SEEDS):
        tokens = model.generate(prompt, 3, temperature=1.0, top_k=TOP_K, seed=seed).tokens
        counts2[tokens[1]] += 1
        counts3[tokens[2]] += 1
    exact2, exact3 = _exact_marginals(base, prompt)
    assert _chi2_p(counts2, exact2) > 0.01
    assert _chi2_p(counts3, exact3) > 0.01
