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


def token_kind(token: str) -> str:
    """slot `<tNN>`, cell `<cNNN>`, end `<eos>` or tag: the kinds a person-day's tokens come in."""
    return {"<t": "slot", "<c": "cell", "<e": "eos"}.get(token[:2], "tag")


def token_nll(model, ids, sequences: list[list[int]], batch: int = 64) -> dict[str, dict[str, float]]:
    """Per kind of the next token (slot, cell, eos): mean negative log2-likelihood of the true token, and the
    mean probability mass the model puts on tokens of that kind (structure: is the right kind of token
    next?) — which tokens an arm gets wrong on held-out days, beyond whether a sample parses."""
    kinds = ("slot", "cell", "eos")
    members = {k: torch.tensor([i for t, i in ids.to_id.items() if token_kind(t) == k]) for k in kinds}
    nll, mass, count = ({k: 0.0 for k in kinds} for _ in range(3))
    with torch.no_grad():
        for offset in range(0, len(sequences), batch):
            chunk = sequences[offset:offset + batch]
            width = max(map(len, chunk))
            pad = ids.to_id["<eos>"]
            x = torch.tensor([s + [pad] * (width - len(s)) for s in chunk])
            logp = torch.log_softmax(model(input_ids=x).logits[:, :-1].float(), dim=-1)  # (batch, width-1, vocab)
            for row, seq in enumerate(chunk):
                for pos, target in enumerate(seq[1:]):
                    kind = token_kind(ids.to_token[target])
                    nll[kind] -= float(logp[row, pos, target]) / math.log(2)
                    mass[kind] += float(logp[row, pos, members[kind]].exp().sum())
                    count[kind] += 1
    return {k: {"nll_bits": nll[k] / count[k], "kind_mass": mass[k] / count[k]} for k in kinds if count[k]}
