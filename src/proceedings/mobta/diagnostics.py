"""Diagnostics of task vectors (spec §2.4): per-parameter cosine and norm ratio, the overall cosine, norms,
and which tokens of held-out person-days a merged model gets wrong.

The paper's theory says shift vectors from base and instruction-tuned backbones project stably onto a
low-dimensional task subspace; at laptop scale we can only report how aligned two shift vectors are, how
large each part of the arithmetic is, and where the merged model's next-token predictions fail.
"""

from __future__ import annotations

import math

import torch

from proceedings.mobta.task_vector import TaskVector
from proceedings.mobta.token_ids import TokenIds
from proceedings.mobta.tokenization import TrajTokenizer


def cosine(a: TaskVector, b: TaskVector) -> float:
    """Cosine of two vectors over their shared parameters."""
    keys = sorted(set(a.deltas) & set(b.deltas))
    dot = sum(float((a.deltas[k].double() * b.deltas[k].double()).sum()) for k in keys)
    na = sum(float((a.deltas[k].double() ** 2).sum()) for k in keys) ** 0.5
    nb = sum(float((b.deltas[k].double() ** 2).sum()) for k in keys) ** 0.5
    return dot / (na * nb) if na and nb else 0.0


def compare(a: TaskVector, b: TaskVector) -> list[tuple[str, float, float]]:
    """(parameter, cosine, |a|/|b|) for every shared parameter, largest |a| first."""
    rows = []
    for key in sorted(set(a.deltas) & set(b.deltas), key=lambda k: -float(a.deltas[k].norm())):
        x, y = a.deltas[key].double().flatten(), b.deltas[key].double().flatten()
        rows.append((key, float(torch.nn.functional.cosine_similarity(x, y, dim=0)), float(x.norm() / y.norm().clamp_min(1e-30))))
    return rows


def norms(vector: TaskVector) -> dict[str, float]:
    """The vector's L2 norm and the share of its squared norm in the embedding (added-token) rows."""
    squares = {k: float((v.double() ** 2).sum()) for k, v in vector.deltas.items()}
    total = sum(squares.values())
    rows = sum(s for k, s in squares.items() if "embed_tokens" in k)
    return {"norm": total ** 0.5, "embedding_share": rows / total if total else 0.0}


def token_nll(model, tokenizer: TrajTokenizer, ids: TokenIds, days: list[list[str]],
              batch: int = 64) -> dict[str, dict[str, float]]:
    """Per kind of the next word (slot, cell / row, column, eos): the mean negative log2-likelihood of the true
    word (the sum over its ids), and the mean probability the model puts on the first ids of words of that
    kind (structure: is the right kind of word next?) — which words an arm gets wrong on held-out days, beyond
    whether a sample parses. `days` are format words, e.g. `tokenizer.encode(day, "mob")`. Where kinds share
    a first id (the tiny model's digits characters: every word starts with a space) the mass cannot tell them
    apart; SmolLM2's digit words start with distinct ids (`␣`, `␣r`, `␣c`)."""
    firsts: dict[str, set[int]] = {}
    for word in tokenizer.vocabulary():
        if tokenizer.kind(word) != "tag":  # a tag only starts a sequence
            firsts.setdefault(tokenizer.kind(word), set()).add(ids.word_ids(word)[0])
    ordered = sorted(firsts.items(), key=lambda kv: kv[0] == "eos")  # eos last, as the words come
    members = {k: torch.tensor(sorted(v)) for k, v in ordered}
    nll, mass, count = ({k: 0.0 for k in members} for _ in range(3))
    with torch.no_grad():
        for offset in range(0, len(days), batch):
            chunk = [[ids.word_ids(w, first=n == 0) for n, w in enumerate(day)] for day in days[offset:offset + batch]]
            flat = [[i for word in day for i in word] for day in chunk]
            width = max(map(len, flat))
            x = torch.tensor([s + [ids.eos_id] * (width - len(s)) for s in flat])
            logp = torch.log_softmax(model(input_ids=x).logits[:, :-1].float(), dim=-1)  # (batch, width-1, vocab)
            for row, (day, words) in enumerate(zip(days[offset:offset + batch], chunk)):
                pos = len(words[0])  # the position of the next word's first id
                for word, word_ids in zip(day[1:], words[1:]):
                    kind = tokenizer.kind(word)
                    steps = logp[row, pos - 1:pos - 1 + len(word_ids)]  # (ids of the word, vocab)
                    nll[kind] -= float(steps.gather(1, torch.tensor(word_ids)[:, None]).sum()) / math.log(2)
                    mass[kind] += float(steps[0, members[kind]].exp().sum())
                    count[kind] += 1
                    pos += len(word_ids)
    return {k: {"nll_bits": nll[k] / count[k], "kind_mass": mass[k] / count[k]} for k in members if count[k]}
