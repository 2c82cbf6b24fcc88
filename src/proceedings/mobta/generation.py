"""Sampling trajectories from a model: batched, KV-cached (HF `generate`), temperature 1, top-p 0.95 (spec §2.5).

Every sample is decoded strictly; the ones that do not parse are counted with their reason (validity),
never repaired or silently dropped.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

import torch

from proceedings.core.progress import progress_bar
from proceedings.mobta.token_ids import TokenIds
from proceedings.mobta.tokenization import InvalidSample, TrajTokenizer
from proceedings.mobta.trajectories import Trajectory


@dataclass
class Samples:
    tag: str
    valid: list[Trajectory]
    invalid: Counter = field(default_factory=Counter)  # reason -> count
    tokens: int = 0
    wall_s: float = 0.0

    @property
    def total(self) -> int:
        return len(self.valid) + sum(self.invalid.values())

    @property
    def validity(self) -> float:
        return len(self.valid) / max(self.total, 1)

    def to_dict(self) -> dict:
        return {"tag": self.tag, "valid": [list(map(list, t.visits)) for t in self.valid],
                "invalid": dict(self.invalid), "tokens": self.tokens, "wall_s": self.wall_s}

    @classmethod
    def from_dict(cls, data: dict) -> "Samples":
        valid = [Trajectory(tuple(map(tuple, visits))) for visits in data["valid"]]
        return cls(data["tag"], valid, Counter(data["invalid"]), data["tokens"], data["wall_s"])


def sample(model, tokenizer: TrajTokenizer, ids: TokenIds, tag: str, n: int, seed: int, max_new_tokens: int = 64,
           batch: int = 64, top_p: float = 0.95, temperature: float = 1.0, desc: str | None = None) -> Samples:
    """n sequences started from the tag's ids, decoded into trajectories (at most `max_new_tokens` ids each)."""
    start = ids.word_ids(tokenizer.tag_word(tag), first=True)
    eos = ids.eos_id
    out = Samples(tag, [])
    torch.manual_seed(seed)
    wall0 = time.perf_counter()
    with progress_bar(total=n, desc=desc or f"sample <{tag}>", unit="seq") as bar:
        for offset in range(0, n, batch):
            size = min(batch, n - offset)
            prompt = torch.tensor([start] * size)  # (size, ids of the tag)
            with torch.no_grad():
                generated = model.generate(input_ids=prompt, attention_mask=torch.ones_like(prompt), do_sample=True,
                                           top_p=top_p, top_k=0, temperature=temperature,
                                           max_new_tokens=max_new_tokens, eos_token_id=eos, pad_token_id=eos)
            for row in generated.tolist():
                body = row[len(start):]
                if eos in body:
                    body = body[:body.index(eos) + 1]
                out.tokens += len(body)
                try:
                    out.valid.append(tokenizer.decode(ids.words(start + body))[1])
                except InvalidSample as err:
                    out.invalid[str(err)] += 1
            bar.update(size)
    out.wall_s = time.perf_counter() - wall0
    return out
