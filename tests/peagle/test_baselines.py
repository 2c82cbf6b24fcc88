"""Prompt lookup drafts what followed the last n-gram earlier in the sequence, and is lossless."""

import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.core.speculative import Verified, autoregressive_decode, speculative_decode
from proceedings.peagle.baselines import PromptLookupProposer
from proceedings.peagle.data import TinyTargetConfig, pattern_prompts, tiny_target


def test_prompt_lookup_proposes_the_tokens_after_the_matching_bigram():
    lookup = PromptLookupProposer(max_ngram=2)
    # positions 1.. hold 5 6 7 8 9 5 6: the last bigram (5, 6) first occurred at the start, followed by 7 8 9
    assert lookup.propose(Verified((), [5, 6, 7, 8, 9, 5, 6], 0), 3).tokens == [7, 8, 9]
    # the target accepted 7 and emitted 4: history 5 6 7 8 9 5 6 7 4; (7, 4) and 4 never occurred before
    assert lookup.propose(Verified((), [7, 4], 7), 3).tokens == []
    with pytest.raises(ProceedingsError, match="verified from position 20"):
        lookup.propose(Verified((), [1], 20), 3)


def test_prompt_lookup_emits_exactly_the_greedy_tokens_and_drafts_the_repeating_pattern():
    target = tiny_target()
    taus = []
    for prompt in pattern_prompts(2, 12, TinyTargetConfig().vocab, seed=14):
        reference = autoregressive_decode(target, prompt, 15).tokens
        for k in (1, 3, 7):
            trace = speculative_decode(target, PromptLookupProposer(), prompt, 15, k)
            assert trace.tokens == reference, k
            taus.append(trace.extras["tau"])
    assert max(taus) > 2.0  # a motif repeated in the prompt is drafted from the prompt itself
