"""The training-free baseline beside EAGLE-3: prompt-lookup (n-gram) drafting (issue 19, spec §5.2).

Prompt lookup (Saxena 2023; Hugging Face's `generate(prompt_lookup_num_tokens=...)`) drafts by finding the
last n committed tokens (n = `max_ngram` down to 1) earlier in the sequence and proposing the k tokens that
followed the first such match. It runs no model at all, so its drafting cost is near zero; what it gains
depends only on how much the output copies the prompt or itself. The drafts are Hugging Face's own
`PromptLookupCandidateGenerator`'s, verified by the same lossless loop as the trained drafters
(`core.speculative`), so its tau and speed-up are measured exactly like theirs.
"""

from __future__ import annotations

from proceedings.core.errors import ProceedingsError
from proceedings.core.speculative import Draft, Verified


class PromptLookupProposer:
    """`core.speculative.Drafter` drafting by n-gram lookup in the committed tokens.

    The loop hands a drafter, per position, the token that follows it, so the sequence seen here starts at
    the prompt's second token: the first prompt token (a chat template's opening marker, usually) is never
    a lookup candidate.
    """

    needs_hidden_states = False

    def __init__(self, name: str = "lookup", max_ngram: int = 2):
        if max_ngram < 1:
            raise ProceedingsError(f"prompt lookup needs an n-gram size of at least 1, got {max_ngram}")
        self.name, self.max_ngram = name, max_ngram
        self.reset()

    def reset(self) -> None:
        self.tokens: list[int] = []  # tokens[j] is the token at position j + 1

    def propose(self, verified: Verified, k: int) -> Draft:
        import torch
        from transformers.generation.candidate_generator import PromptLookupCandidateGenerator

        if verified.start > len(self.tokens):
            raise ProceedingsError(f"prompt lookup holds {len(self.tokens)} positions but the target verified from "
                                   f"position {verified.start}")
        self.tokens[verified.start:] = verified.next_tokens
        lookup = PromptLookupCandidateGenerator(num_output_tokens=k, max_matching_ngram_size=self.max_ngram,
                                                max_length=len(self.tokens) + k + 1)
        ids = torch.tensor([self.tokens])
        candidates, _ = lookup.get_candidates(ids)
        return Draft(candidates[0, ids.shape[1]:].tolist())
