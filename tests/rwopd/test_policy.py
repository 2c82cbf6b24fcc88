"""One forward per prompt: the shared-prompt paths compute what prompting every copy computes."""

import torch

from proceedings.rwopd.policy import completion_logprobs, encode_rollouts, sample
from proceedings.rwopd.prompting import format_prompt

PROMPTS = [format_prompt("sig_A is high"), format_prompt("Whenever sig_B rises, sig_C is high two cycles later.")]


def _one_row_at_a_time(model, tok, prompt, completion):
    """The plain computation: prompt + completion + EOS as one unpadded row, log-softmax at completion positions."""
    head = tok(prompt, add_special_tokens=False)["input_ids"]
    tail = tok(completion, add_special_tokens=False)["input_ids"] + [tok.eos_token_id]
    logits = model(input_ids=torch.tensor([head + tail])).logits[0, len(head) - 1:-1]
    return torch.log_softmax(logits.float(), dim=-1), torch.tensor(tail)


def test_shared_prompt_logprobs_equal_one_unpadded_row_per_completion(tiny_lm):
    model, tok = tiny_lm
    completions, owner = [" sig_A\n", " sig_B |-> ##2 sig_C\n", " $rose(sig_B) |=> ##1 sig_C\n"], [0, 1, 1]
    batch = encode_rollouts(tok, PROMPTS + [format_prompt("unused")], completions, owner)
    assert batch.prompt_ids.shape[0] == 2 and batch.size == 3  # the unused prompt is not encoded
    with torch.no_grad():
        logp, rows, targets = completion_logprobs(model, batch)
    for i, (completion, p) in enumerate(zip(completions, owner)):
        want, want_targets = _one_row_at_a_time(model, tok, PROMPTS[p], completion)
        assert torch.equal(targets[rows == i], want_targets)
        assert torch.allclose(logp[rows == i], want, atol=1e-4)


def test_sampling_with_a_shared_prefill_gives_the_tokens_of_separate_greedy_decodes(tiny_lm):
    model, tok = tiny_lm
    together = sample(model, tok, PROMPTS, 3, 6, temperature=0.0)
    assert [len(outs) for outs in together] == [3, 3]
    for prompt, outs in zip(PROMPTS, together):
        ids = tok(prompt, return_tensors="pt", add_special_tokens=False)["input_ids"]
        alone = model.generate(input_ids=ids, do_sample=False, max_new_tokens=6, pad_token_id=tok.pad_token_id,
                               eos_token_id=tok.eos_token_id)
        text = tok.decode(alone[0, ids.shape[1]:], skip_special_tokens=True).split("\n", 1)[0]
        assert outs == [text] * 3
