"""Detection from the secret key: z-test, p-value, green fraction, mean score (paper §3.3).

Both watermarks reduce to green/red indicators of the scored tokens: KGW's keyed hash, or PRO's
policy sign (token v is green after a context when M(context)[v] > 0; training keeps M balanced so
gamma = 0.5).  z = (G - gamma T) / sqrt(T gamma (1 - gamma)) over T scored tokens, each (context,
token) pair counted once (KGW's `ignore_repeated_ngrams`).  Thresholds come either from the z-test
(p-value) or, more honestly for a learned detector, from a null set (`calibrate`), spec §2.1.
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass
from pathlib import Path

import torch

from proceedings.core.errors import ProceedingsError
from proceedings.core.runtime import atomic_write_text
from proceedings.pro.key import Key, load_key, tokenizer_hash

log = logging.getLogger(__name__)
MIN_SCORED_TOKENS = 16


@dataclass
class Score:
    n_scored: int
    z: float | None = None
    p_value: float | None = None
    green_frac: float | None = None
    mean_score: float | None = None
    status: str = "ok"  # or "insufficient_tokens"
    watermarked: bool | None = None  # against an empirical threshold, when one is loaded


class KeyMismatch(ProceedingsError):
    """Key and text (tokenizer) or key and stated parameters disagree: scoring would be meaningless."""


class Detector:
    """Scores token ids or text against one key; refuses a tokenizer the key was not trained with."""

    def __init__(self, key: Key, tokenizer, ignore_repeated: bool = True, min_tokens: int = MIN_SCORED_TOKENS):
        actual = tokenizer_hash(tokenizer)
        if actual != key.tokenizer_hash:
            raise KeyMismatch(f"the key was made for tokenizer {key.tokenizer_hash} but the text tokenizer "
                              f"is {actual}; score with the tokenizer of the watermarked model")
        self.key, self.tokenizer = key, tokenizer
        self.ignore_repeated, self.min_tokens = ignore_repeated, min_tokens
        self.thresholds: dict[float, float] = {}
        if key.kind == "pro":
            self.policy, self.gamma, self.context = key.build_policy(), key.policy.gamma, key.policy.n
            self.watermark = self.policy
        else:
            from proceedings.pro.kgw import KGWWatermark

            self.watermark, self.gamma, self.context = KGWWatermark(key.kgw, key.vocab_size), key.kgw.gamma, key.kgw.k

    @classmethod
    def load(cls, key_dir: Path | str, tokenizer, **kwargs) -> "Detector":
        return cls(load_key(key_dir), tokenizer, **kwargs)

    def check_params(self, gamma: float | None = None, delta: float | None = None, n: int | None = None) -> None:
        """Raise when a value the user states differs from the key's (a silent low score otherwise)."""
        stated = {"gamma": gamma, "delta": delta, "n": n}
        for name, value in stated.items():
            if value is not None and not math.isclose(value, self.key.params[name]):
                raise KeyMismatch(f"{name} mismatch: the key was trained with {name}={self.key.params[name]} "
                                  f"but {name}={value} was given; drop the option or use the matching key")

    @torch.no_grad()
    def token_evidence(self, ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(green, score) per next token of a (T,) id sequence, for positions with a full context."""
        batch = ids.long().unsqueeze(0)
        if self.key.kind == "pro":
            score = self.policy.token_scores(batch)[0]
            green = score > 0
        else:
            green = self.watermark.is_green(batch)[0]
            score = green.float()
        return green, score

    def score_ids(self, ids, prompt_len: int = 0) -> Score:
        """Score the tokens of `ids` after the first `prompt_len` (the prompt is context, not evidence)."""
        ids = torch.as_tensor(ids, dtype=torch.long)
        green, score = self.token_evidence(ids)
        first = max(prompt_len, self.context) - 1  # index into next-token arrays; needs a full context
        positions = range(max(first, 0), len(ids) - 1)
        keep, seen = [], set()
        for t in positions:
            pair = tuple(ids[t - self.context + 1 : t + 2].tolist())
            if self.ignore_repeated and pair in seen:
                continue
            seen.add(pair)
            keep.append(t)
        n = len(keep)
        if n < self.min_tokens:
            return Score(n_scored=n, status="insufficient_tokens")
        g = green[keep].float().sum().item()
        z = (g - self.gamma * n) / math.sqrt(n * self.gamma * (1 - self.gamma))
        result = Score(n_scored=n, z=z, p_value=0.5 * math.erfc(z / math.sqrt(2)), green_frac=g / n,
                       mean_score=score[keep].mean().item())
        if self.thresholds:
            result.watermarked = z > min(self.thresholds.values())
        return result

    def score(self, text: str, prompt: str | None = None) -> Score:
        """Score `text`; with `prompt`, the prompt's tokens are stripped (they are not the model's)."""
        prompt_ids = self.tokenizer(prompt, add_special_tokens=False)["input_ids"] if prompt else []
        text_ids = self.tokenizer(text, add_special_tokens=False)["input_ids"]
        return self.score_ids(prompt_ids + text_ids, prompt_len=len(prompt_ids))

    def calibrate(self, null_scores: list[Score], fprs=(0.01, 0.05)) -> dict[float, float]:
        """Empirical z thresholds at each false-positive rate from un-watermarked texts' scores."""
        import numpy as np

        zs = np.array([s.z for s in null_scores if s.z is not None])
        if len(zs) < 2:
            raise ProceedingsError("calibration needs at least 2 scorable null texts")
        for fpr in fprs:
            if len(zs) < 1 / fpr:
                log.warning("%d null texts cannot resolve a %.0f%% FPR; the threshold is the maximum", len(zs), fpr * 100)
        self.thresholds = {fpr: float(np.quantile(zs, 1 - fpr, method="higher")) for fpr in fprs}
        return self.thresholds

    def save_thresholds(self, path: Path | str) -> Path:
        record = {"tokenizer_hash": self.key.tokenizer_hash, "thresholds": {str(k): v for k, v in self.thresholds.items()}}
        return atomic_write_text(path, json.dumps(record, indent=2) + "\n")

    def load_thresholds(self, path: Path | str, fpr: float | None = None) -> None:
        record = json.loads(Path(path).read_text())
        if record["tokenizer_hash"] != self.key.tokenizer_hash:
            raise KeyMismatch(f"thresholds were calibrated for tokenizer {record['tokenizer_hash']}, the key "
                              f"is for {self.key.tokenizer_hash}")
        found = {float(k): v for k, v in record["thresholds"].items()}
        if fpr is not None and fpr not in found:
            raise ProceedingsError(f"no threshold for FPR {fpr} in '{path}'; it has {sorted(found)}")
        self.thresholds = {fpr: found[fpr]} if fpr is not None else found
