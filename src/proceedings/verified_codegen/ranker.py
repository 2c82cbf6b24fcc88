"""Ranking a candidate pool once per task, shared by every workflow (issue 24: "ranked by SmolLM2
log-likelihood (cached, shared by all arms); a size prior as second ranker").

`SizeRanker` puts shorter candidates first (Occam's prior: fewer annotations, fewer lemmas).
`LikelihoodRanker` scores each candidate's text by SmolLM2's mean token log-probability after the
task's prompt (description + protected spec), highest first, ties broken by size; scores are cached
on disk under $PROCEEDINGS_CACHE/verified_codegen/, keyed by the hash of prompt and candidate, so
every arm and every rerun sees the same order.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from proceedings.verified_codegen.candidates import Candidate
from proceedings.verified_codegen.tasks import Task


class Ranker:
    name = "ranker"
    tokens = 0  # tokens scored (reported beside wall)
    seconds = 0.0

    def rank(self, task: Task, candidates: list[Candidate]) -> list[Candidate]:
        raise NotImplementedError


class SizeRanker(Ranker):
    name = "size"

    def rank(self, task, candidates):
        return sorted(candidates, key=lambda c: len(c.text()))  # stable: ties keep the pool's order


def prompt_of(task: Task, backend: str) -> str:
    from proceedings.verified_codegen.folds import protected_text

    return (f"// Task: {task.description}\n// Write the {backend} implementation and its proof.\n"
            f"{protected_text(task, backend)}\n")


@dataclass
class LikelihoodRanker(Ranker):
    model: str = "smollm2-135m"
    cache: Path | None = None
    name: str = "smollm2-loglik"
    _scores: dict = field(default_factory=dict)

    def __post_init__(self):
        from proceedings.core.models import cache_root

        self.cache = self.cache or cache_root() / "verified_codegen" / "ranker.json"
        self._scores = json.loads(self.cache.read_text()) if self.cache.exists() else {}
        self._lm = None
        self.tokens, self.seconds = 0, 0.0

    def rank(self, task, candidates):
        prompt = prompt_of(task, candidates[0].backend) if candidates else ""
        scores = [self.score(prompt, c.text()) for c in candidates]
        order = sorted(range(len(candidates)), key=lambda i: (-scores[i], len(candidates[i].text())))
        self.cache.parent.mkdir(parents=True, exist_ok=True)
        self.cache.write_text(json.dumps(self._scores, sort_keys=True))
        return [candidates[i] for i in order]

    def score(self, prompt: str, text: str) -> float:
        key = hashlib.sha256(f"{self.model}\0{prompt}\0{text}".encode()).hexdigest()
        if key not in self._scores:
            self._scores[key] = self._mean_logprob(prompt, text)
        return self._scores[key]

    def _mean_logprob(self, prompt: str, text: str) -> float:
        import torch

        from proceedings.core.models import load_causal_lm

        start = time.perf_counter()
        if self._lm is None:
            self._lm = load_causal_lm(self.model, device="cpu")
        model, tokenizer = self._lm
        head = tokenizer(prompt, return_tensors="pt").input_ids
        body = tokenizer(text, return_tensors="pt", add_special_tokens=False).input_ids
        ids = torch.cat([head, body], dim=1)
        with torch.inference_mode():
            logits = model(ids).logits[0, head.shape[1] - 1:-1]  # (len(body), vocab)
        logprobs = torch.log_softmax(logits.float(), dim=-1).gather(1, body[0][:, None])
        self.tokens += int(ids.shape[1])
        self.seconds += time.perf_counter() - start
        return float(logprobs.mean())


def make_ranker(name: str) -> Ranker:
    from proceedings.core.errors import ProceedingsError

    if name == "size":
        return SizeRanker()
    if name in ("smollm2", "smollm2-loglik"):
        return LikelihoodRanker()
    raise ProceedingsError(f"unknown ranker '{name}'; choose size or smollm2")
