"""Both drafters, untrained and trained, are lossless on the tiny target; bad input is refused in one line."""

import copy

import pytest
import torch

from proceedings.core.errors import ProceedingsError
from proceedings.core.speculative import autoregressive_decode, speculative_decode
from proceedings.peagle.data import TinyTargetConfig, pattern_prompts, tiny_target
from proceedings.peagle.drafter import DrafterConfig, init_drafter
from proceedings.peagle.proposer import DrafterProposer
from proceedings.peagle.target import draft_vocabulary, extract_features
from proceedings.peagle.training import TrainConfig, depth_accuracy, train_drafter

LAYERS = (1, 2, 3)
VOCAB = TinyTargetConfig().vocab
NEW = 15  # new tokens per decode; the budget cuts the last round short (a draft of fewer than K tokens)


@pytest.fixture(scope="module")
def setting():
    target = tiny_target()
    prompts = pattern_prompts(8, 12, VOCAB, seed=11)
    pairs = [(p + autoregressive_decode(target, p, 20).tokens, len(p)) for p in prompts]
    sequences = extract_features(target, pairs, LAYERS)
    d2t = draft_vocabulary(sequences, 40, VOCAB)
    drafters = {}
    for method, k_train in (("eagle3", 3), ("peagle", 8)):
        untrained = init_drafter(target, method, 1, k_train, d2t, LAYERS, seed=0)
        trained = copy.deepcopy(untrained)
        record = train_drafter(trained, sequences, TrainConfig(steps=8, sequences_per_step=2, lr=3e-3, ttt_steps=3,
                                                               partitions=2))
        drafters[method] = (untrained, trained, record)
    return target, sequences, drafters


@pytest.fixture(scope="module")
def greedy(setting):
    """(prompt, greedy tokens, an EOS id inside them, greedy tokens stopping at it) for 5 prompts."""
    target = setting[0]
    cases = []
    for prompt in pattern_prompts(5, 10, VOCAB, seed=12):
        reference = autoregressive_decode(target, prompt, NEW).tokens
        eos = reference[6]  # an end-of-sequence token inside an accepted block (when drafts are right)
        cases.append((prompt, reference, eos, autoregressive_decode(target, prompt, NEW, eos_token_id=eos).tokens))
    return cases


@pytest.mark.parametrize("method", ["eagle3", "peagle"])
def test_untrained_and_trained_drafters_emit_exactly_the_greedy_tokens(setting, greedy, method):
    target, _, drafters = setting
    untrained, trained, _ = drafters[method]
    for drafter in (untrained, trained):
        proposer = DrafterProposer(drafter, target)
        for prompt, reference, eos, with_eos in greedy:
            for k in (1, 3, 7):
                assert speculative_decode(target, proposer, prompt, NEW, k).tokens == reference, (method, k)
            if drafter is trained:  # whose drafts get accepted, so the EOS can fall inside an accepted block
                assert speculative_decode(target, proposer, prompt, NEW, 3, eos_token_id=eos).tokens == with_eos


def test_every_decoding_forward_reads_only_its_new_tokens_on_the_kv_cache(setting):
    """The cache is reused: after the prefill, a verification forward sees exactly [last token, drafts] on a cache
    holding every committed token but the last, and plain decoding one token per forward."""
    target, _, drafters = setting
    calls = []
    hook = target.register_forward_pre_hook(
        lambda module, args, kwargs: calls.append((kwargs["input_ids"].shape[1], kwargs["cache"].get_seq_length())),
        with_kwargs=True)
    prompt = pattern_prompts(1, 10, VOCAB, seed=14)[0]
    try:
        plain = autoregressive_decode(target, prompt, 12)
        assert calls == [(10, 0)] + [(1, 10 + i) for i in range(11)]
        calls.clear()
        trace = speculative_decode(target, DrafterProposer(drafters["eagle3"][1], target), prompt, 19, 3)
    finally:
        hook.remove()
    assert calls[0] == (10, 0) and trace.tokens[:12] == plain.tokens
    committed = 11
    for (new, cached), drafted, accepted in zip(calls[1:], trace.extras["drafted"], trace.extras["accepted"], strict=True):
        assert (new, cached) == (drafted + 1, committed - 1)
        committed += accepted + 1


def test_training_lowers_the_loss_and_trained_drafters_get_more_drafts_right(setting):
    target, sequences, drafters = setting
    for method, (untrained, trained, record) in drafters.items():
        assert record.steps == 8 and record.losses[-1] < record.losses[0], method
        before, after = depth_accuracy(untrained, sequences, 2)[0], depth_accuracy(trained, sequences, 2)[0]
        assert after > before + 0.05, (method, before, after)
    proposer = DrafterProposer(drafters["eagle3"][1], target)
    trace = speculative_decode(target, proposer, pattern_prompts(1, 10, VOCAB, seed=13)[0], 24, 3)
    assert trace.extras["tau"] > 1.0


def test_bad_input_is_refused_in_one_line(setting):
    target, _, drafters = setting
    peagle = drafters["peagle"][1]
    with pytest.raises(ProceedingsError, match="outside 1..8"):
        speculative_decode(target, DrafterProposer(peagle, target), [5, 6, 7], 20, 9)
    other = tiny_target(TinyTargetConfig(train_steps=0))
    with pytest.raises(ProceedingsError, match="trained for another target: target hash"):
        DrafterProposer(peagle, other)
    with pytest.raises(ProceedingsError, match="larger than the target's"):
        DrafterConfig("peagle", 32, 4, 64, 1, LAYERS, target_vocab=64, draft_vocab=65, k_train=4)
    with pytest.raises(ProceedingsError, match="unknown drafter method"):
        DrafterConfig("medusa", 32, 4, 64, 1, LAYERS, target_vocab=64, draft_vocab=8, k_train=4)
    with pytest.raises(ProceedingsError, match="do not exist"):
        init_drafter(target, "peagle", 1, 4, torch.arange(8), (1, 2, 9))
    with pytest.raises(ProceedingsError, match="larger than the target's vocabulary"):
        draft_vocabulary([], VOCAB + 1, VOCAB)
