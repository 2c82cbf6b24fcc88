"""Property-based: the checker calls a property equivalent to any rewrite of it by SVA identities."""

import random

import pytest

pytest.importorskip("z3")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from proceedings.rwopd.grammar import CATEGORIES, equivalent_rewrite, generate_pairs  # noqa: E402
from proceedings.rwopd.pec import Verdict, check_equivalence  # noqa: E402


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), category=st.sampled_from(CATEGORIES), rewrite_seed=st.integers(0, 10_000))
def test_identity_rewrite_is_always_equivalent(seed, category, rewrite_seed):
    original = generate_pairs(1, seed=seed, categories=(category,))[0].sva
    rewritten = equivalent_rewrite(original, random.Random(rewrite_seed), steps=3)
    result = check_equivalence(original, rewritten, timeout_s=20)
    assert result.verdict in (Verdict.EQUIVALENT, Verdict.EQUIVALENT_BOUNDED), (original, rewritten, result.message)
    if category != "unbounded":  # safety pairs are proved by k-induction, not just bounded
        assert result.verdict == Verdict.EQUIVALENT, (original, rewritten, result.notes)


def equal_on_every_trace(a: str, b: str) -> bool:
    """Trace equality alone: a side that folds to a constant reads no signal, so the checker's signal
    correspondence calls such a pair DIFFERENT while saying the traces agree."""
    result = check_equivalence(a, b)
    return result.verdict == Verdict.EQUIVALENT or result.message.startswith("equal on every trace")


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_changing_a_fixed_delay_is_never_equivalent(seed):
    original = generate_pairs(1, seed=seed, categories=("bounded",))[0].sva
    if "|-> ##" not in original or "##[" in original:
        return
    head, _, tail = original.partition("|-> ##")
    if equal_on_every_trace(f"{head}|-> 1'b0", f"{head}|-> 1'b1"):
        return  # the antecedent never matches (e.g. !s && $rose(s)): every consequent is vacuous
    digits = tail.split(" ", 1)
    if equal_on_every_trace(digits[1], f"{digits[1]} || 1'b1"):
        return  # a tautological consequent holds at any delay
    later = f"{head}|-> ##{int(digits[0]) + 1} {digits[1]}"
    assert check_equivalence(original, later).verdict != Verdict.EQUIVALENT
