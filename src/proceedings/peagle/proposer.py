"""Drafting at inference: a trained drafter as the `core.speculative` Drafter (spec §2.1, §2.3).

The drafter keeps its own KV cache of verified positions only. Each round it first consumes the
positions the target just verified (their features, and the tokens that follow them); the output at the
newest one is the first draft. Then
- EAGLE-3 runs k - 1 more forwards, each fed its previous output hidden state and the previous draft;
- P-EAGLE appends k - 1 mask positions (fc(mask_hidden), mask embedding) to the same forward, so all k
  drafts come out of one pass.
Speculative keys and values are dropped after the round (vLLM overwrites those slots).
"""

from __future__ import annotations

import torch

from proceedings.core.errors import ProceedingsError
from proceedings.core.bench import FunctionDecoder
from proceedings.core.speculative import (Draft, Verified, draft_probs_in_target_vocab, speculative_decoder,
                                          target_probs)
from proceedings.peagle.drafter import Drafter, DrafterConfig, chain_mask


def check_fits(cfg: DrafterConfig, target) -> None:
    """Refuse a drafter trained for another target: hidden size, vocabulary, layers, or target hash differ."""
    from proceedings.peagle.target import target_hash

    config = target.config
    problems = [f"{what} {mine} vs the target's {theirs}" for what, mine, theirs in (
        ("hidden size", cfg.hidden_size, config.hidden_size), ("vocabulary", cfg.target_vocab, config.vocab_size))
        if mine != theirs]
    if max(cfg.feature_layers) > config.num_hidden_layers:
        problems.append(f"feature layers {cfg.feature_layers} beyond the target's {config.num_hidden_layers} layers")
    if not problems and cfg.target_hash and cfg.target_hash != target_hash(target):
        problems.append(f"target hash {cfg.target_hash} vs {target_hash(target)}")
    if problems:
        raise ProceedingsError(f"this {cfg.method} drafter was trained for another target: {'; '.join(problems)}")


class DrafterProposer:
    """`core.speculative.Drafter` around a trained EAGLE-3 or P-EAGLE drafter."""

    needs_hidden_states = True

    def __init__(self, drafter: Drafter, target, name: str | None = None, temperature: float = 0.0,
                 top_k: int | None = None, seed: int = 0):
        check_fits(drafter.cfg, target)
        self.drafter, self.name = drafter.eval(), name or drafter.cfg.method
        self.temperature, self.top_k, self.seed = temperature, top_k, seed
        self.reset()

    def reset(self) -> None:
        self.past: list[tuple[torch.Tensor, torch.Tensor]] | None = None
        self.length = 0  # verified positions in the drafter's cache
        self.generator = torch.Generator().manual_seed(self.seed)

    def check_k(self, k: int) -> None:
        if self.drafter.parallel and not 1 <= k <= self.drafter.cfg.k_train:
            raise ProceedingsError(f"K={k} is outside 1..{self.drafter.cfg.k_train}, the parallel positions this "
                                   "P-EAGLE drafter was trained with")

    def propose(self, verified: Verified, k: int) -> Draft:
        self.check_k(k)
        d = self.drafter
        if verified.start != self.length:
            raise ProceedingsError(f"drafter cache holds {self.length} positions but the target verified from "
                                   f"position {verified.start}")
        with torch.inference_mode():
            features = torch.cat([verified.hidden_states[i][0] for i in d.cfg.feature_layers], -1).float()
            m = len(verified.next_tokens)
            hidden = d.fc(features)
            embeddings = d.embed(torch.tensor(verified.next_tokens, device=features.device))
            anchors = torch.arange(self.length, self.length + m, device=features.device)
            depths = torch.zeros(m, dtype=torch.long, device=features.device)
            if d.parallel and k > 1:
                mask_hidden, mask_embedding = d.mask_inputs(k - 1)
                hidden, embeddings = torch.cat([hidden, mask_hidden]), torch.cat([embeddings, mask_embedding])
                anchors = torch.cat([anchors, anchors[-1].expand(k - 1)])
                depths = torch.cat([depths, torch.arange(1, k, device=features.device)])
            x, kv = self._forward(hidden, embeddings, anchors, depths, self.past)
            self.past = [(pk[:, :m], pv[:, :m]) if self.past is None else
                         (torch.cat([self.past[i][0], pk[:, :m]], 1), torch.cat([self.past[i][1], pv[:, :m]], 1))
                         for i, (pk, pv) in enumerate(kv)]
            self.length += m
            if d.parallel:
                return self._draft(d.logits(x[m - 1:]))
            return self._chain(x[m - 1:m], anchors[-1], k)

    def _forward(self, hidden, embeddings, anchors, depths, past):
        """Queries (anchors, depths) over the cached verified positions plus themselves (`chain_mask`)."""
        mask = chain_mask(anchors, depths, anchors, depths)
        if past is not None:
            cached = past[0][0].shape[1]
            mask = torch.cat([torch.ones(len(anchors), cached, dtype=torch.bool, device=mask.device), mask], 1)
        return self.drafter(hidden, embeddings, anchors + depths, mask, past)

    def _chain(self, x: torch.Tensor, anchor: torch.Tensor, k: int) -> Draft:
        """EAGLE-3: one more drafter forward per draft, fed its own hidden state and the previous draft."""
        d = self.drafter
        draft = self._draft(d.logits(x))
        past = self.past
        for depth in range(1, k):
            token = torch.tensor(draft.tokens[-1:], device=x.device)
            x, kv = self._forward(x, d.embed(token), anchor.view(1), torch.tensor([depth], device=x.device), past)
            past = [(torch.cat([pk, nk], 1), torch.cat([pv, nv], 1)) for (pk, pv), (nk, nv) in zip(past, kv)]
            step = self._draft(d.logits(x))
            draft = Draft(draft.tokens + step.tokens,
                          None if step.probs is None else torch.cat([draft.probs, step.probs]))
        return draft

    def _draft(self, logits: torch.Tensor) -> Draft:
        """Greedy: the argmax of each row; sampling: a draw from softmax(logits / T), with q in the target vocab."""
        d = self.drafter
        if self.temperature == 0:
            return Draft(d.draft_to_target[logits.argmax(-1)].tolist())
        probs = target_probs(logits, self.temperature, self.top_k)
        picks = torch.multinomial(probs, 1, generator=self.generator)[:, 0]
        return Draft(d.draft_to_target[picks].tolist(),
                     draft_probs_in_target_vocab(probs, d.draft_to_target, d.cfg.target_vocab))


def drafting_arms(target, drafters: dict[str, Drafter], ks, eos_token_id: int | None) -> list[FunctionDecoder]:
    """Benchmark arms at each K: prompt lookup (`lookup-k<K>`), then each named drafter (`<name>-k<K>`);
    plain greedy decoding, their reference, is the caller's first arm. A K a P-EAGLE drafter was not
    trained for is refused before anything runs."""
    from proceedings.peagle.baselines import PromptLookupProposer

    arms = []
    for k in ks:
        arms.append(speculative_decoder(f"lookup-k{k}", target, PromptLookupProposer(name=f"lookup-k{k}"), k,
                                        eos_token_id))
        for name, drafter in drafters.items():
            proposer = DrafterProposer(drafter, target, name=f"{name}-k{k}")
            proposer.check_k(k)
            arms.append(speculative_decoder(proposer.name, target, proposer, k, eos_token_id))
    return arms
