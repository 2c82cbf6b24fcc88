"""CounterFact / ZsRE metrics, held-out perplexity and fluency (spec §2.5).

Per request, on the edited model:
  efficacy        P(target_new) > P(target_true) on the rewrite prompt (mean-token NLL, ROME);
                  without a true answer (ZsRE): every target token is the argmax
  generalization  the same on each paraphrase
  specificity     each neighbourhood prompt still prefers the *original model's* answer, computed
                  before the first edit, over target_new (fixes the EasyEdit #643 class of bug)
  *_acc           token-level accuracies (ZsRE style) against target_new / the original answers
Over the model: perplexity of held-out text, and fluency = ROME's weighted bi/tri-gram entropy of
greedy generations.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import TYPE_CHECKING, Sequence

from proceedings.nas.prompts import build_batch
from proceedings.nas.requests import EditRequest, target_ids

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

RATE_KEYS = ("efficacy", "generalization", "specificity", "rewrite_acc", "paraphrase_acc", "neighborhood_acc")


def _predict(model, tok, pairs: Sequence[tuple[str, list[int]]], batch_size: int = 64) -> list[tuple[list[float], list[int]]]:
    """For each (prompt, continuation ids): log-probs of the continuation tokens and the argmax tokens."""
    import torch

    head, device = model.get_output_embeddings(), next(model.parameters()).device
    out = []
    for start in range(0, len(pairs), batch_size):
        group = pairs[start:start + batch_size]
        # '{}' with the whole prompt as "subject": the batch builder's subject position is unused here
        batch = build_batch(tok, [(i, "{}", prompt, cont) for i, (prompt, cont) in enumerate(group)], device)
        with torch.no_grad():
            hidden = model.base_model(input_ids=batch.input_ids, attention_mask=batch.attention_mask).last_hidden_state
            logp = torch.log_softmax(head(hidden[batch.target_rows, batch.target_pos]).float(), -1)
        chosen = logp.gather(1, batch.target_tok[:, None]).squeeze(1).tolist()
        argmax = logp.argmax(-1).tolist()
        rows = batch.target_rows.tolist()
        for i in range(len(group)):
            idx = [j for j, r in enumerate(rows) if r == i]
            out.append(([chosen[j] for j in idx], [argmax[j] for j in idx]))
    return out


def _answer_length(tok, request: EditRequest) -> int:
    reference = request.neighborhood_answer or request.target_true or request.target_new
    return len(target_ids(tok, reference, request.case_id))


def original_answers(model: "PreTrainedModel", tok: "PreTrainedTokenizerBase",
                     requests: Sequence[EditRequest]) -> list[list[list[int]]]:
    """Greedy answers of the (unedited) model to every neighbourhood prompt: [request][prompt] -> ids."""
    jobs = [(r, p, _answer_length(tok, r)) for r in requests for p in r.neighborhood]
    answers: list[list[int]] = [[] for _ in jobs]
    for step in range(max((k for *_, k in jobs), default=0)):
        active = [j for j, (_, _, k) in enumerate(jobs) if step < k]
        # a placeholder token marks the position whose prediction we want
        found = _predict(model, tok, [(jobs[j][1], answers[j] + [tok.eos_token_id]) for j in active])
        for j, (_, argmax) in zip(active, found):
            answers[j].append(argmax[-1])
    it = iter(answers)
    return [[next(it) for _ in r.neighborhood] for r in requests]


def request_metrics(model: "PreTrainedModel", tok: "PreTrainedTokenizerBase", requests: Sequence[EditRequest],
                    answers: Sequence[Sequence[Sequence[int]]]) -> list[dict[str, float]]:
    """The per-request metrics of the module docstring, on the model as it is now."""
    pairs, index = [], []

    def add(kind: str, r: int, prompt: str, ids: list[int]) -> None:
        index.append((kind, r))
        pairs.append((prompt, ids))

    for r, req in enumerate(requests):
        new = target_ids(tok, req.target_new, req.case_id)
        true = target_ids(tok, req.target_true, req.case_id) if req.target_true else None
        for kind, prompt in [("rewrite", req.text)] + [("paraphrase", p) for p in req.paraphrases]:
            add(f"{kind}_new", r, prompt, new)
            if true:
                add(f"{kind}_true", r, prompt, true)
        for prompt, answer in zip(req.neighborhood, answers[r]):
            add("neighbor_new", r, prompt, new)
            add("neighbor_orig", r, prompt, list(answer))
    scored = _predict(model, tok, pairs)
    per = [dict() for _ in requests]
    for (kind, r), (pair, (logp, argmax)) in zip(index, zip(pairs, scored)):
        nll = -sum(logp) / len(logp)
        acc = sum(a == t for a, t in zip(argmax, pair[1])) / len(logp)
        per[r].setdefault(kind, []).append((nll, acc))
    return [_combine(entries) for entries in per]


def _combine(entries: dict[str, list[tuple[float, float]]]) -> dict[str, float]:
    def success(kind: str) -> list[float]:
        news = entries.get(f"{kind}_new", [])
        trues = entries.get(f"{kind}_true")
        if trues:
            return [float(n < t) for (n, _), (t, _) in zip(news, trues)]
        return [float(acc == 1.0) for _, acc in news]

    def mean(values) -> float:
        values = list(values)
        return sum(values) / len(values) if values else float("nan")

    neighbours = list(zip(entries.get("neighbor_orig", []), entries.get("neighbor_new", [])))
    return {
        "efficacy": mean(success("rewrite")),
        "generalization": mean(success("paraphrase")),
        "specificity": mean(float(orig < new) for (orig, _), (new, _) in neighbours),
        "rewrite_acc": mean(acc for _, acc in entries.get("rewrite_new", [])),
        "paraphrase_acc": mean(acc for _, acc in entries.get("paraphrase_new", [])),
        "neighborhood_acc": mean(acc for (_, acc), _ in neighbours),
    }


def summarize(per_request: Sequence[dict[str, float]]) -> dict[str, float]:
    """Means over requests (NaN entries skipped) and the score S = mean(efficacy, generalization, specificity)."""
    summary = {}
    for key in RATE_KEYS:
        values = [m[key] for m in per_request if not math.isnan(m[key])]
        summary[key] = sum(values) / len(values) if values else float("nan")
    parts = [summary[k] for k in ("efficacy", "generalization", "specificity") if not math.isnan(summary[k])]
    summary["score"] = sum(parts) / len(parts)
    return summary


def perplexity(model: "PreTrainedModel", tok: "PreTrainedTokenizerBase", text: str, max_tokens: int = 4096,
               seq_len: int = 256) -> float:
    """exp(mean NLL) of the first max_tokens tokens of `text`, in windows of seq_len."""
    import torch

    ids = tok(text, add_special_tokens=False).input_ids[:max_tokens]
    head, device = model.get_output_embeddings(), next(model.parameters()).device
    total, count = 0.0, 0
    for start in range(0, len(ids) - 1, seq_len):
        window = torch.tensor([ids[start:start + seq_len]], device=device)
        if window.shape[1] < 2:
            break
        with torch.no_grad():
            hidden = model.base_model(input_ids=window).last_hidden_state
            logp = torch.log_softmax(head(hidden[0, :-1]).float(), -1)
        total -= float(logp.gather(1, window[0, 1:, None]).sum())
        count += window.shape[1] - 1
    return math.exp(total / count)


def ngram_entropy(text: str, ns=(2, 3), weights=(2 / 3, 4 / 3)) -> float:
    """ROME's fluency: the weighted mean of the n-gram entropies (bits) of a text."""
    words = text.split()
    values = []
    for n, weight in zip(ns, weights):
        counts = Counter(tuple(words[i:i + n]) for i in range(len(words) - n + 1))
        total = sum(counts.values())
        entropy = -sum(c / total * math.log2(c / total) for c in counts.values()) if total else 0.0
        values.append(weight * entropy)
    return sum(values) / len(values)


def fluency(model: "PreTrainedModel", tok: "PreTrainedTokenizerBase", prompts: Sequence[str], max_new_tokens: int = 48) -> float:
    """Mean n-gram entropy of greedy generations from `prompts`."""
    import torch

    side, tok.padding_side = tok.padding_side, "left"
    try:
        enc = tok(list(prompts), return_tensors="pt", padding=True).to(next(model.parameters()).device)
    finally:
        tok.padding_side = side
    with torch.no_grad():
        out = model.generate(**enc, max_new_tokens=max_new_tokens, do_sample=False, pad_token_id=tok.pad_token_id)
    texts = tok.batch_decode(out[:, enc.input_ids.shape[1]:], skip_special_tokens=True)
    return sum(ngram_entropy(t) for t in texts) / len(texts)
