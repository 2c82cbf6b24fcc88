"""What a finished (or partly finished) `reproduce` run's arms write, beyond how often it passes.

Reads the stage folder of a run: each evaluation's recorded samples (`<stage>_samples.jsonl`) give
the syntax-error share with slang's first diagnostic grouped by kind, and the share of samples with a
temporal operator where the reference has one (the paper's "template collapse": a bounded or
liveness specification answered with a plain implication); each arm's final checkpoint gives the
mean next-token entropy and the reference's negative log-likelihood on the held-out references
(teacher-forced), i.e. how broad the distribution is that evaluation samples from at T = 0.8.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

_POSITION = re.compile(r"^\s*(?:[AB]: )?\d+:\d+: ")
_QUOTED = re.compile(r"'[A-Za-z_]\w*'")  # a name, not a quoted delimiter
SIGNAL_LETTERS = set("ABCDEFGHIJ")  # the grammar's sig_A..sig_J
_TEMPORAL = re.compile(r"##|\$past|\$rose|\$fell|\$stable|\$changed|eventually|until|nexttime|always|\[\*|\[->|\[=|\|=>")


def error_kind(message: str) -> str:
    """slang's first diagnostic without its position and with names abstracted: `expected ')'`."""
    first = message.split(";", 1)[0]
    return _QUOTED.sub("'_'", _POSITION.sub("", first)) if first.strip() else "no assertion"


def is_temporal(sva: str) -> bool:
    """Whether an SVA text uses any operator that looks across clock ticks."""
    return bool(_TEMPORAL.search(sva))


def samples_summary(rows: list[dict], top: int = 4) -> dict:
    """Syntax-error share and kinds; how often a temporal reference gets a temporal answer."""
    errors = [r for r in rows if r["verdict"] == "SYNTAX_ERROR"]
    temporal = [r for r in rows if is_temporal(r["reference"])]
    return {"samples": len(rows), "syntax_error": len(errors) / len(rows) if rows else float("nan"),
            "error_kinds": dict(Counter(error_kind(r["message"]) for r in errors).most_common(top)),
            "temporal_reference_answered_temporally":
                sum(is_temporal(r["sample"]) for r in temporal) / len(temporal) if temporal else float("nan")}


def stage_samples(folder: Path) -> dict[str, dict]:
    """`samples_summary` of every evaluation recorded in a run's stage folder."""
    return {path.name.removesuffix("_samples.jsonl"):
            samples_summary([json.loads(line) for line in path.read_text().splitlines()])
            for path in sorted(folder.glob("*_samples.jsonl"))}


def token_role(tokenizer, token: int, first: bool) -> str:
    """What a reference token decides: the answer's first token, a signal name, a number, an operator
    or parenthesis, the closing newline, or EOS."""
    text = tokenizer.decode([token])
    if first:
        return "first token"
    if token == tokenizer.eos_token_id:
        return "eos"
    if "\n" in text:
        return "newline"
    if "sig" in text or text.strip().lstrip("_") in SIGNAL_LETTERS:
        return "signal"
    return "number" if any(ch.isdigit() for ch in text) else "operator/paren"


def reference_entropy(model, tokenizer, tasks) -> dict:
    """Mean next-token entropy and reference NLL (nats/token) over the tasks' reference completions,
    and the entropy by `token_role`."""
    import torch

    from proceedings.rwopd.policy import completion_logprobs, supervised_batch

    with torch.no_grad():
        logp, rows, target = completion_logprobs(model, supervised_batch(tokenizer, tasks, model.device))
    entropy = -(logp.exp() * logp).sum(-1)
    first = torch.ones_like(rows, dtype=torch.bool)
    first[1:] = rows[1:] != rows[:-1]
    roles = [token_role(tokenizer, t, f) for t, f in zip(target.tolist(), first.tolist())]
    return {"entropy": entropy.mean().item(), "reference_nll": -logp.gather(-1, target[:, None]).mean().item(),
            "entropy_by_role": {role: entropy[[i for i, r in enumerate(roles) if r == role]].mean().item()
                                for role in sorted(set(roles))}}


def arm_entropies(folder: Path, base_student, teacher, tokenizer, tasks) -> dict[str, dict[str, float]]:
    """`reference_entropy` of the warm start, the teacher and every arm whose final checkpoint exists."""
    import copy

    from proceedings.core.runtime import load_checkpoint
    from proceedings.rwopd.distill import METHODS

    out = {"warm_start": reference_entropy(base_student, tokenizer, tasks),
           "teacher": reference_entropy(teacher, tokenizer, tasks)}
    for method in METHODS:
        state = load_checkpoint(folder / method / "state.pt")
        if state is not None:
            student = copy.deepcopy(base_student)
            student.load_state_dict(state["model"])
            out[f"{method} (step {state['step']})"] = reference_entropy(student.eval(), tokenizer, tasks)
    return out
