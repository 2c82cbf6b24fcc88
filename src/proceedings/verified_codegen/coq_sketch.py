"""The sketch agent's Coq sketches and induction scripts (issue 24: sketches "written once per backend").

Read from the protected spec alone (folds.coq_fold: the spec `Fixpoint F (l : list Z) ks : T`, its base
case and its combination of the head `{x}` with the recursive result `{rest}`; a list recursion peels
the front), never from a reference solution:
- program shapes: `recursion` (structural recursion on the list, the spec's combination with the
  recursive call in place of the spec's) and `accumulator` (a tail-recursive helper carrying `acc`,
  whose step is the combination with `acc` in place of `{rest}`, started at the base case); each in
  the spec's operand order or swapped, where the combination is `E op {rest}`;
- induction scripts: the main theorem of a recursion by induction on the list with the IH rewritten,
  closed by `reflexivity`, by `lia`, or by `auto` alone; the accumulator's lemma, stated generalised
  (`helper l ks acc = acc (+) F l ks`, with (+) the combination's operator on `{rest}`: `E + {rest}` or
  `E * {rest}`, and `+` for a combination that only adds to `{rest}` in each branch: `S {rest}`,
  `1 + {rest}`) or at the base case only, proved by induction with `acc` generalised or fixed (a case
  split on the combination's conditionals before the IH); the main theorem by unfolding, rewriting
  with the lemma, closed by `lia` or `reflexivity`.

PlanFirst's Coq rules (spec §2.2 P.1, generic, from the spec): (5) the code follows the spec's own
recursion in its operand order, and the proof is induction on the list the spec recurses on, the IH
rewritten into the combination, arithmetic closed by `lia`; (6) replan: the accumulator, with the
lemma that generalises over `acc` stated by the plan and discharged on its own.
"""

from __future__ import annotations

import re

from proceedings.verified_codegen.agents import Plan
from proceedings.verified_codegen.candidates import Candidate, Lemma
from proceedings.verified_codegen.folds import Fold

RECURSION_PROOFS = {"refl": "[reflexivity | rewrite IH; reflexivity]", "lia": "[lia | rewrite IH; lia]", "auto": "auto"}


def accumulation(fold: Fold) -> str | None:
    """The operator the combination applies to `{rest}` (what an accumulator must add up), or None."""
    found = re.fullmatch(r"(.+?)\s*([+*])\s*\{rest\}", fold.combine)
    if found and "{rest}" not in found.group(1):
        return found.group(2)
    branches = re.fullmatch(r"if\s+.+?\s+then\s+(.+?)\s+else\s+(.+)", fold.combine)
    additive = r"\{rest\}|S\s+\{rest\}|\d+\s*\+\s*\{rest\}"
    if branches and all(re.fullmatch(additive, b.strip()) for b in branches.groups()):
        return "+"
    return None


def swapped(fold: Fold) -> str | None:
    """The combination with its operands swapped (`E op {rest}` -> `{rest} op E`), or None."""
    found = re.fullmatch(r"(.+?)\s*([+*])\s*\{rest\}", fold.combine)
    return f"{{rest}} {found.group(2)} {found.group(1)}" if found and "{rest}" not in found.group(1) else None


def _combination(fold: Fold, order: str) -> str:
    return fold.combine if order == "spec" else swapped(fold)


def _step(fold: Fold, order: str, rest: str) -> str:
    return _combination(fold, order).replace("{x}", "x").replace("{rest}", rest)


def _scope(fold: Fold, term: str) -> str:
    return f"({term})%nat" if fold.result_type == "nat" else f"({term})"


def _names(fold: Fold) -> tuple[str, str]:
    """(binders, arguments) of the extra parameters: ` (k : Z)`, ` k`."""
    return "".join(f" ({k} : Z)" for k in fold.extra), "".join(f" {k}" for k in fold.extra)


def _case_split(fold: Fold) -> str:
    conditions = re.findall(r"if\s+(.+?)\s+then", fold.combine)
    return "".join(f"destruct ({c.replace('{x}', 'x')}); simpl; " for c in conditions)


def recursion_code(fold: Fold, order: str) -> str:
    binders, args = _names(fold)
    m = fold.method
    return (f"Fixpoint {m} (l : list Z){binders} : {fold.result_type} :=\n  match l with\n  | [] => {fold.base}\n"
            f"  | x :: t => {_step(fold, order, f'({m} t{args})')}\n  end.\n")


def accumulator_code(fold: Fold, order: str) -> str:
    binders, args = _names(fold)
    m, t = fold.method, fold.result_type
    return (f"Fixpoint {m}_acc (l : list Z){binders} (acc : {t}) : {t} :=\n  match l with\n  | [] => acc\n"
            f"  | x :: t => {m}_acc t{args} ({_step(fold, order, 'acc')})\n  end.\n\n"
            f"Definition {m} (l : list Z){binders} : {t} := {m}_acc l{args} ({fold.base}).\n")


def accumulator_lemma(fold: Fold, statement: str, idiom: str) -> Lemma:
    """The accumulator's lemma, generalised over `acc` or at the base case only, proved by one idiom."""
    _, args = _names(fold)
    name, helper, spec = f"{fold.method}_acc_spec", f"{fold.method}_acc", f"{fold.function} l{args}"
    if statement == "general":
        text = f"Lemma {name} : forall l{args} acc, {helper} l{args} acc = {_scope(fold, f'acc {accumulation(fold)} {spec}')}."
        introduced = f"{args} acc"
    else:
        text = f"Lemma {name} : forall l{args}, {helper} l{args} ({fold.base}) = {spec}."
        introduced = args
    step = f"  - {_case_split(fold)}rewrite IH; lia.\n"
    if idiom == "generalised":
        head = f"  induction l as [| x t IH]; {f'intros{introduced}; ' if introduced else ''}simpl.\n"
    else:
        head = f"  intros l{introduced}. induction l as [| x t IH]; simpl.\n"
    return Lemma(name, text, f"Proof.\n{head}  - lia.\n{step}Qed.")


def coq_pool(fold: Fold) -> list[Candidate]:
    """Every Coq sketch x induction script for a fold task, unranked (3 recursions per operand order, and 8
    accumulators per order when the combination accumulates: 22 for `x + rest`, 11 for count_pos's `if`)."""
    _, args = _names(fold)
    orders = ("spec", "swapped") if swapped(fold) else ("spec",)
    pool = []
    for order in orders:
        code = recursion_code(fold, order)
        for proof, script in RECURSION_PROOFS.items():
            pool.append(Candidate("coq", code, proof=f"  intros l{args}. induction l as [| x t IH]; simpl; {script}.\n",
                                  features={"shape": "recursion", "order": order, "proof": proof}))
    if accumulation(fold) is None:
        return pool
    for order in orders:
        code = accumulator_code(fold, order)
        for statement in ("general", "base"):
            for idiom in ("generalised", "fixed"):
                lemma = accumulator_lemma(fold, statement, idiom)
                for close in ("lia", "reflexivity"):
                    proof = f"  intros l{args}. unfold {fold.method}. rewrite {lemma.name}. {close}.\n"
                    pool.append(Candidate("coq", code, (lemma,), proof,
                                          features={"shape": "accumulator", "order": order, "lemma": statement,
                                                    "lemma_proof": idiom, "proof": "lia" if close == "lia" else "refl"}))
    return pool


def coq_plans(fold: Fold) -> list[Plan]:
    """PlanFirst's Coq rules (module docstring): the spec's recursion, then the accumulator with its lemma."""
    plans = [Plan("coq recursion", (f"IH: {fold.method} t = {fold.function} t",),
                  pitfalls=("structural recursion on the list the spec recurses on",))]
    if accumulation(fold) is not None:
        lemma = accumulator_lemma(fold, "general", "generalised")
        plans.append(Plan("coq accumulator", (lemma.statement,), (Lemma(lemma.name, lemma.statement),),
                          ("generalise over acc before the induction",), revision=1))
    return plans


def allowed(plan: Plan, candidate: Candidate) -> bool:
    """Whether a pool candidate fits a Coq plan: its shape, the spec's order, closed by lia, the general lemma."""
    shape = plan.approach.split()[-1]
    features = candidate.features
    return (features["shape"] == shape and features["order"] == "spec" and features["proof"] == "lia"
            and features.get("lemma", "general") == "general")
