"""The exactness audit (issue 20, spec §2.4/§7): does Orthrus emit the AR view's own greedy trajectory?

Per prompt: the first position where the two trajectories differ, the tokens there, and the AR view's
top-2 logit margin at that position (a margin near zero says the two forward shapes rounded a near-tie
differently). fp32 is expected to match everywhere; bf16 is reported as a match rate (the independent
check found 43-45 % of prompts matched in bf16), and the word "exact" is used only at 100 %.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Sequence

import torch

from proceedings.core.errors import ProceedingsError

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}


@dataclass
class Divergence:
    prompt: int  # index in the prompt list
    position: int  # first new token where the trajectories differ
    ar_token: int | None  # None: the AR trajectory ended there
    orthrus_token: int | None
    margin: float | None  # AR top-1 minus top-2 logit at that position


@dataclass
class AuditReport:
    precision: str
    prompts: int
    matched: int
    divergences: list[Divergence] = field(default_factory=list)

    @property
    def match_rate(self) -> float:
        return self.matched / self.prompts if self.prompts else 0.0

    @property
    def exact(self) -> bool:
        """True only when every prompt matched: a rate below 100 % is never called exact."""
        return self.prompts > 0 and self.matched == self.prompts

    def summary(self) -> dict:
        return {"precision": self.precision, "prompts": self.prompts, "matched": self.matched,
                "match_rate": self.match_rate, "exact": self.exact,
                "divergences": [vars(d) for d in self.divergences]}


def first_divergence(reference: Sequence[int], tokens: Sequence[int]) -> int | None:
    """The first index where the two token lists differ (a length difference counts), or None."""
    for i, (a, b) in enumerate(zip(reference, tokens)):
        if a != b:
            return i
    return None if len(reference) == len(tokens) else min(len(reference), len(tokens))


def top2_margin(base, context: Sequence[int]) -> float:
    """The AR view's top-1 minus top-2 logit for the token after `context`."""
    device = next(base.parameters()).device
    with torch.inference_mode():
        logits = base(input_ids=torch.tensor([list(context)], device=device)).logits[0, -1].float()
    top = torch.topk(logits, 2).values
    return float(top[0] - top[1])


def compare(base, prompts: Sequence[Sequence[int]], references: Sequence[Sequence[int]],
            outputs: Sequence[Sequence[int]], precision: str = "fp32") -> AuditReport:
    """An audit from trajectories already decoded (AR `references`, Orthrus `outputs`, one per prompt)."""
    report = AuditReport(precision, len(prompts), 0)
    for i, (prompt, ref, out) in enumerate(zip(prompts, references, outputs)):
        at = first_divergence(ref, out)
        if at is None:
            report.matched += 1
            continue
        token = lambda seq: seq[at] if at < len(seq) else None  # noqa: E731
        report.divergences.append(Divergence(i, at, token(ref), token(out), top2_margin(base, [*prompt, *ref[:at]])))
    return report


def audit(model, prompts: Sequence[Sequence[int]], max_new_tokens: int, precision: str = "fp32",
          block_size: int | None = None) -> AuditReport:
    """Decode every prompt greedily in both modes at `precision` (a converted copy of the model) and compare."""
    if precision not in DTYPES:
        raise ProceedingsError(f"unknown precision '{precision}'; choose one of: {', '.join(DTYPES)}")
    if precision != "fp32":
        model = copy.copy(model)
        model.base = copy.deepcopy(model.base).to(DTYPES[precision])
        model.view = copy.deepcopy(model.view).to(DTYPES[precision])
    references = [model.generate(p, max_new_tokens, mode="ar").tokens for p in prompts]
    outputs = [model.generate(p, max_new_tokens, mode="orthrus", block_size=block_size).tokens for p in prompts]
    return compare(model.base, prompts, references, outputs, precision)
