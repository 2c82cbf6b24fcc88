"""The tiny preset's data: a motif library whose motifs share no token, continued greedily in one batch."""

import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.core.speculative import autoregressive_decode
from proceedings.peagle.data import TinyTargetConfig, greedy_continuations, motif_library, pattern_prompts, tiny_target

VOCAB = TinyTargetConfig().vocab


def test_library_motifs_share_no_token_so_every_token_has_one_successor():
    library = motif_library(12, VOCAB, seed=0)
    tokens = [t for motif in library for t in motif.tolist()]
    assert [len(m) for m in library] == [2, 3, 4, 5, 6] * 2 + [2, 3]
    assert len(set(tokens)) == len(tokens) and min(tokens) >= 3 and max(tokens) < VOCAB
    successor = {}
    for prompt in pattern_prompts(20, 16, VOCAB, seed=3, library=library):
        for a, b in zip(prompt, prompt[1:]):
            assert successor.setdefault(a, b) == b
    with pytest.raises(ProceedingsError, match="need 80 distinct tokens"):
        motif_library(20, VOCAB)


def test_batched_greedy_continuations_equal_one_prompt_at_a_time():
    target = tiny_target()
    prompts = pattern_prompts(4, 12, VOCAB, seed=5, library=motif_library(12, VOCAB))
    for prompt, row in zip(prompts, greedy_continuations(target, prompts, 10)):
        assert row == prompt + autoregressive_decode(target, prompt, 10).tokens
    with pytest.raises(ProceedingsError, match="one length"):
        greedy_continuations(target, [[3, 4], [3]], 2)
