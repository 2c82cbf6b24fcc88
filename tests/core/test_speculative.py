"""Speculative decoding is lossless: greedy verification emits the target's own greedy tokens, rejection
sampling the target's distribution, and the KV cache is rolled back to the accepted length."""

import pytest
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.core.speculative import (Draft, Verified, autoregressive_decode, draft_probs_in_target_vocab,
                                          greedy_accept, rejection_accept, rollback, speculative_decode)

PROMPTS = [[1, 5, 9, 2, 7], [3, 3, 3], [11, 4, 8, 15, 16, 23, 42], [6], [7, 1, 7, 1, 7, 1]]


def small_llama(vocab: int = 64, seed: int = 0):
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    config = LlamaConfig(vocab_size=vocab, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256)
    return LlamaForCausalLM(config).eval()


class ScriptedDrafter:
    """Proposes the reference's greedy tokens, except that every `wrong_every`-th draft is corrupted: the
    accepted length then varies inside a round. Checks that the loop hands over every committed
    position exactly once, with the hidden states of those positions."""

    name = "scripted"
    needs_hidden_states = True

    def __init__(self, prompt, reference, wrong_every, vocab):
        self.sequence, self.wrong_every, self.vocab = list(prompt) + list(reference), wrong_every, vocab
        self.prompt_len = len(prompt)

    def reset(self):
        self.seen, self.calls = 0, 0

    def propose(self, verified: Verified, k: int) -> Draft:
        assert verified.start == self.seen and len(verified.hidden_states[0][0]) == len(verified.next_tokens)
        assert verified.next_tokens == self.sequence[self.seen + 1:self.seen + 1 + len(verified.next_tokens)]
        self.seen += len(verified.next_tokens)
        position = self.seen + 1  # the first draft follows the newest token, at index `seen` of the sequence
        drafts = []
        for i in range(k):
            self.calls += 1
            true = self.sequence[position + i] if position + i < len(self.sequence) else 0
            drafts.append((true + 1) % self.vocab if self.calls % self.wrong_every == 0 else true)
        return Draft(drafts)


def test_greedy_accept_takes_the_longest_agreeing_prefix_and_the_target_token_after_it():
    assert greedy_accept([10, 11, 12], [10, 11, 99, 7]) == (2, 99)
    assert greedy_accept([10, 11, 12], [10, 11, 12, 7]) == (3, 7)
    assert greedy_accept([10], [3, 4]) == (0, 3)
    with pytest.raises(ProceedingsError, match="needs 4 target predictions"):
        greedy_accept([1, 2, 3], [1, 2, 3])


def test_rollback_drops_the_rejected_drafts_from_the_kv_cache():
    from transformers import DynamicCache

    model, cache = small_llama(), DynamicCache()
    with torch.inference_mode():
        model(input_ids=torch.tensor([[1, 2, 3, 4, 5]]), cache=cache, use_cache=True)  # n = 5 cached
        model(input_ids=torch.tensor([[6, 10, 11, 12]]), cache=cache, use_cache=True)  # [x_n, a, b, c]
        assert cache.get_seq_length() == 9
        accepted, bonus = greedy_accept([10, 11, 12], [10, 11, 40, 41])
        rollback(cache, 3 - accepted)  # keep x_n, a, b
        assert (accepted, bonus, cache.get_seq_length()) == (2, 40, 8)
        # the rolled-back cache gives the logits of a fresh prefill of the kept tokens
        after = model(input_ids=torch.tensor([[bonus]]), cache=cache, use_cache=True).logits[0, -1]
        fresh = model(input_ids=torch.tensor([[1, 2, 3, 4, 5, 6, 10, 11, 40]])).logits[0, -1]
    torch.testing.assert_close(after, fresh, atol=1e-5, rtol=1e-5)
    with pytest.raises(ProceedingsError, match="cannot roll"):
        rollback(cache, -1)


@pytest.mark.parametrize("k", [1, 3, 7])
def test_greedy_speculative_decoding_equals_plain_greedy_with_eos_and_a_cut_mid_round(k):
    model = small_llama()
    for i, prompt in enumerate(PROMPTS):
        reference = autoregressive_decode(model, prompt, 23).tokens  # 23: the last round is cut short
        for wrong_every in (2, 5, 1000):
            drafter = ScriptedDrafter(prompt, reference, wrong_every, 64)
            trace = speculative_decode(model, drafter, prompt, 23, k)
            assert trace.tokens == reference, (prompt, wrong_every)
            assert len(trace.token_seconds) == len(trace.tokens)
            assert 1 <= trace.extras["tau"] <= k + 1
        eos = reference[10]  # an end-of-sequence token inside an accepted block
        with_eos = autoregressive_decode(model, prompt, 23, eos_token_id=eos).tokens
        assert with_eos[-1] == eos and len(with_eos) <= 11
        drafter = ScriptedDrafter(prompt, reference, 1000, 64)
        assert speculative_decode(model, drafter, prompt, 23, k, eos_token_id=eos).tokens == with_eos
    perfect = speculative_decode(model, ScriptedDrafter(PROMPTS[0], reference_of(model, PROMPTS[0]), 10**6, 64),
                                 PROMPTS[0], 23, k).extras
    assert perfect["accepted"][:-1] == [k] * (len(perfect["accepted"]) - 1)


def reference_of(model, prompt):
    return autoregressive_decode(model, prompt, 23).tokens


def test_bad_requests_are_refused_in_one_line():
    model = small_llama()
    drafter = ScriptedDrafter([1], [], 2, 64)
    with pytest.raises(ProceedingsError, match="exceed the target's context of 256"):
        speculative_decode(model, drafter, [1] * 250, 10, 3)
    with pytest.raises(ProceedingsError, match="at least 1"):
        speculative_decode(model, drafter, [1], 10, 0)
    with pytest.raises(ProceedingsError, match="empty prompt"):
        autoregressive_decode(model, [], 10)


def chi2_pvalue(observed, expected) -> float:
    from scipy.stats import chisquare

    keep = expected > 0
    assert observed[~keep].sum() == 0, "a token the target never emits was emitted"
    return float(chisquare(observed[keep], expected[keep]).pvalue)


def test_rejection_sampling_reproduces_the_target_distribution_when_p_has_mass_outside_q():
    p = torch.tensor([[0.30, 0.25, 0.20, 0.15, 0.10, 0.00], [0.1, 0.2, 0.3, 0.2, 0.1, 0.1]])
    q = torch.tensor([[0.05, 0.50, 0.00, 0.40, 0.00, 0.05]])  # no mass on tokens 2 and 4, some on 5 where p has none
    generator = torch.Generator().manual_seed(0)
    draws = 20_000
    firsts = torch.zeros(6)
    for _ in range(draws):
        draft = int(torch.multinomial(q[0], 1, generator=generator))
        accepted, token = rejection_accept([draft], q, p, generator)
        firsts[draft if accepted else token] += 1
    assert chi2_pvalue(firsts, p[0] * draws) > 0.01


def test_draft_probabilities_are_placed_at_their_target_ids():
    full = draft_probs_in_target_vocab(torch.tensor([[0.25, 0.75]]), torch.tensor([4, 1]), 6)
    assert full.tolist() == [[0.0, 0.75, 0.0, 0.0, 0.25, 0.0]]


class FixedQDrafter:
    """Samples each draft from a fixed distribution q that differs from the target's: rejection sampling
    must still give the target's marginals."""

    name = "fixed-q"
    needs_hidden_states = False

    def __init__(self, q, seed):
        self.q, self.generator = q, torch.Generator().manual_seed(seed)

    def reset(self):
        pass

    def propose(self, verified, k):
        tokens = torch.multinomial(self.q, k, replacement=True, generator=self.generator).tolist()
        return Draft(tokens, self.q.expand(k, -1).clone())


@pytest.mark.slow  # ~20 s quiet, 90 s on a busy machine
def test_sampled_speculative_decoding_has_the_marginals_of_plain_sampling():
    vocab, seeds = 12, 1500
    model = small_llama(vocab, seed=1)
    q = torch.softmax(torch.randn(vocab, generator=torch.Generator().manual_seed(3)), -1)
    plain = torch.zeros(2, vocab)
    spec = torch.zeros(2, vocab)
    for seed in range(seeds):
        a = autoregressive_decode(model, [1, 2], 3, temperature=1.0, top_k=8, seed=seed).tokens
        b = speculative_decode(model, FixedQDrafter(q, seed), [1, 2], 3, 2, temperature=1.0, top_k=8,
                               seed=10_000 + seed).tokens
        for j in (1, 2):  # tokens 2 and 3: they come out of the verification, not the prefill
            plain[j - 1, a[j]] += 1
            spec[j - 1, b[j]] += 1
    from scipy.stats import chi2_contingency

    for j in range(2):
        keep = (plain[j] + spec[j]) > 0
        assert chi2_contingency(torch.stack([plain[j, keep], spec[j, keep]]).numpy()).pvalue > 0.01
