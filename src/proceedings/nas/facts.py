"""CounterFact-style edit requests built from facts the model actually knows (spec §4).

Relation tables (relations.json): capital of a country, country of a city, official language of a
country, each with a prompt, paraphrase prompts and subject -> object pairs. A fact is *known* when
the first token of its object is in the model's top-k next tokens after the prompt. A request asks
to rewrite a known fact to another object of the same relation (target_new != target_true), with the
relation's paraphrases and neighbourhood prompts about other known subjects (same object first, as
in CounterFact). For tests without a real model, `invented_tables` makes up subjects and objects.
"""

from __future__ import annotations

import json
import random
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from proceedings.core.errors import ProceedingsError
from proceedings.nas.prompts import build_batch
from proceedings.nas.requests import EditRequest, target_ids

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

N_NEIGHBOURS = 2  # CounterFact has 2 paraphrases; two of each keep evaluation affordable on a CPU
N_PARAPHRASES = 2
REFERENCE_SEED = 0  # the reference pool for rho is drawn with this seed everywhere (CLI, experiment, edit)


INVENTED_OBJECTS = ("Kel", "Mir", "Dun", "Bra", "Tes", "Lin", "Gar")  # one token each (with a space) for SmolLM2


@lru_cache(maxsize=1)
def relation_tables() -> dict:
    """The built-in tables: {relation: {"prompt", "paraphrases", "pairs": {subject: object}}}."""
    return json.loads((Path(__file__).with_name("relations.json")).read_text())


def invented_tables(n_subjects: int = 40, seed: int = 0) -> dict:
    """Made-up subjects and one-token objects under the real relation prompts cut after the subject
    (the tiny scale's facts). A random model passes almost nothing from the subject to later positions,
    so its value solve can reach the NLL target only where the object follows the subject directly."""
    rng = random.Random(seed)
    syllables = ["zor", "vath", "kel", "mir", "dun", "bra", "tes", "qua", "lin", "pho", "gar", "ux", "nel", "sko"]

    def word() -> str:
        return "".join(rng.choice(syllables) for _ in range(rng.randint(2, 3))).capitalize()

    def ending_on_subject(prompt: str) -> str:
        return prompt[: prompt.index("{}") + 2]

    tables = {}
    for name, table in relation_tables().items():
        subjects = sorted({word() for _ in range(n_subjects)})
        tables[name] = {**table, "prompt": ending_on_subject(table["prompt"]),
                        "paraphrases": [ending_on_subject(p) for p in table["paraphrases"]],
                        "pairs": {s: rng.choice(INVENTED_OBJECTS) for s in subjects}}
    return tables


def _check_relations(tables: dict, relations: Sequence[str] | None) -> list[str]:
    names = list(relations or tables)
    unknown = [r for r in names if r not in tables]
    if unknown:
        raise ProceedingsError(f"unknown relation(s) {unknown}; choose from: {', '.join(tables)}")
    return names


def all_facts(tables: dict | None = None, relations: Sequence[str] | None = None) -> list[tuple[str, str, str]]:
    tables = tables or relation_tables()
    return [(rel, s, o) for rel in _check_relations(tables, relations) for s, o in tables[rel]["pairs"].items()]


def fact_sentences() -> list[str]:
    """One sentence per fact, for the C_0 corpus."""
    tables = relation_tables()
    return [tables[rel]["prompt"].format(s) + f" {o}." for rel, s, o in all_facts(tables)]


def known_facts(model: "PreTrainedModel", tok: "PreTrainedTokenizerBase", relations: Sequence[str] | None = None,
                top_k: int = 1, tables: dict | None = None, batch_size: int = 64) -> list[tuple[str, str, str]]:
    """The facts whose object's first token is in the model's top-k after the prompt."""
    import torch

    facts = all_facts(tables, relations)
    tables = tables or relation_tables()
    device = next(model.parameters()).device
    known = []
    for start in range(0, len(facts), batch_size):
        group = facts[start:start + batch_size]
        batch = build_batch(tok, [(i, tables[rel]["prompt"], s, []) for i, (rel, s, _) in enumerate(group)], device)
        with torch.no_grad():
            logits = model(input_ids=batch.input_ids, attention_mask=batch.attention_mask).logits
        last = logits[torch.arange(len(group)), batch.attention_mask.sum(1) - 1]  # (n, vocab)
        top = last.topk(top_k, dim=-1).indices
        for row, (rel, s, o) in enumerate(group):
            if target_ids(tok, " " + o)[0] in top[row].tolist():
                known.append((rel, s, o))
    return known


def requests_from_facts(facts: Sequence[tuple[str, str, str]], n: int, seed: int = 0,
                        tables: dict | None = None) -> list[EditRequest]:
    """n CounterFact-schema requests over `facts`, deterministic for `seed`.

    Neighbourhood prompts come from facts that the stream does not edit (an edited neighbour would
    change its answer legitimately and count against specificity); only when a relation has fewer
    than N_NEIGHBOURS unedited facts are edited ones used.
    """
    tables = tables or relation_tables()
    rng = random.Random(seed)
    chosen = list(facts)
    rng.shuffle(chosen)
    edited = {(rel, s) for rel, s, _ in chosen[:n]}
    unedited: dict[str, list[tuple[str, str]]] = {}
    everyone: dict[str, list[tuple[str, str]]] = {}
    for rel, s, o in facts:
        everyone.setdefault(rel, []).append((s, o))
        if (rel, s) not in edited:
            unedited.setdefault(rel, []).append((s, o))
    requests = []
    for rel, subject, true in chosen[:n]:
        table = tables[rel]
        pool = unedited.get(rel, []) if len(unedited.get(rel, [])) >= N_NEIGHBOURS else everyone[rel]
        objects = sorted({o for _, o in tables[rel]["pairs"].items()} - {true})
        others = [(s, o) for s, o in pool if s != subject]
        rng.shuffle(others)
        others.sort(key=lambda pair: pair[1] != true)  # same object first (CounterFact's neighbourhood)
        requests.append(EditRequest(
            prompt=table["prompt"], subject=subject, target_new=" " + rng.choice(objects), target_true=" " + true,
            paraphrases=tuple(p.format(subject) for p in rng.sample(table["paraphrases"], N_PARAPHRASES)),
            neighborhood=tuple(table["prompt"].format(s) for s, _ in others[:N_NEIGHBOURS]),
            case_id=f"{rel}:{subject}", relation=rel))
    if len(requests) < n:
        raise ProceedingsError(f"only {len(requests)} facts available for {n} requests; lower --n or add relations")
    return requests


def table_requests(n: int, seed: int = 0, tables: dict | None = None) -> list[EditRequest]:
    """Requests over all table facts without probing (the reference pool for rho, the tiny data)."""
    facts = all_facts(tables)
    return requests_from_facts(facts, min(n, len(facts)), seed, tables)


def known_fact_requests(model: "PreTrainedModel", tok: "PreTrainedTokenizerBase", n: int, seed: int = 0,
                        relations: Sequence[str] | None = None, top_k: int = 1) -> list[EditRequest]:
    """Requests that rewrite facts the model knows (top-k), neighbours drawn from known facts too."""
    return requests_from_facts(known_facts(model, tok, relations, top_k), n, seed)
