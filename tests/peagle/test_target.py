"""Features are aligned with what the target predicts: the stored final hidden state at position t is what
the LM head reads there (its logits, whose argmax is the greedy token t + 1), and the training target of a
depth-0 element at anchor a is the target's distribution at a + 1 (the token a + 2)."""

import torch

from proceedings.peagle.data import TinyTargetConfig, greedy_continuations, pattern_prompts, tiny_target
from proceedings.peagle.target import extract_features

LAYERS = (1, 2, 3)
PROMPT = 10


def test_the_stored_final_hidden_state_gives_the_targets_logits_and_predicts_the_next_token():
    target = tiny_target()  # a fresh copy: changing it leaves the cached weights alone
    with torch.no_grad():  # a final norm far from the identity: normalising twice would change the logits
        target.model.norm.weight.mul_(torch.linspace(0.3, 3.0, target.config.hidden_size))
    prompts = pattern_prompts(4, PROMPT, TinyTargetConfig().vocab, seed=31)
    sequences = extract_features(target, [(s, PROMPT) for s in greedy_continuations(target, prompts, 12)], LAYERS)
    head = target.get_output_embeddings().weight
    for seq in sequences:
        with torch.no_grad():
            logits = target(input_ids=seq.tokens[None]).logits[0]
        stored = seq.final_hidden.float() @ head.T
        assert torch.allclose(stored, logits, atol=0.05 * float(logits.abs().max())), "final hidden is not the head's input"
        assert torch.equal(stored.argmax(-1), seq.argmax)
        response = torch.arange(PROMPT - 1, len(seq.tokens) - 1)  # positions whose next token is greedy
        aligned = (stored.argmax(-1)[response] == seq.tokens[response + 1]).float().mean()
        shifted = (stored.argmax(-1)[response] == seq.tokens[response]).float().mean()
        assert aligned == 1.0 and shifted < 0.5, (float(aligned), float(shifted))
