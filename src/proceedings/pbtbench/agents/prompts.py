"""The two prompt regimes (spec 2.6), versioned; their hash is stored with every run.

`baseline`: open-ended, "find bugs by writing tests". `pbt`: explicit Hypothesis scaffolding:
read the docs, list the documented invariants, name the input region where each could break,
then write `@given` tests whose strategies concentrate there. The texts are this project's own.
"""

from __future__ import annotations

import hashlib

PROMPT_VERSION = "pbtbench-prompts-2"

PROTOCOL = """Work in steps. Each of your replies must contain exactly one action:
- `LIST [folder]` to see the workspace files (docs/, existing_tests/, library/) and their sizes.
- `READ <path> [offset] [length]` to see a file, from character `offset` (default 0), `length`
  characters at a time (default 6000); the reply says where the next page starts.
- `RUN` followed by one ```python fenced block: a complete pytest file; it runs against the
  library and you see which tests pass and fail.
- `SUBMIT` followed by one ```python fenced block with your final test file (or `SUBMIT` alone to
  submit the file you last ran).
A test that fails reveals a bug only if the failure is the library's fault, so each test must pass
on a correct implementation of the documented behaviour."""

BASELINE = """You are testing the Python library described below. It contains bugs: places where its
behaviour differs from its documentation. Find as many as you can by writing tests; use any
testing approach you like. Each test function should target one documented behaviour.

""" + PROTOCOL

PBT = """You are an expert in property-based testing with Hypothesis. The Python library described
below contains bugs: its behaviour differs from its documentation only for some inputs, which
random default inputs almost never produce. Find them with property-based tests.

Proceed in phases:
1. Read the documentation. List every invariant it states (round trips, ordering, sizes,
   boundaries, what an operation must leave unchanged, what a sequence of operations must give).
2. For each invariant, name the input region where an implementation could get it wrong:
   boundary values, exact thresholds and sizes, duplicates and collisions, empty and single
   elements, special values, long or particular sequences of operations.
3. For each invariant write one `@given` test whose strategy puts most of its examples in that
   region, with `@settings(max_examples=200, deadline=None)`. Compare against a simple model
   (a dict, a list, sorted(), a formula from the docs) where you can.
4. Run the tests, fix tests that fail because of your own mistakes, keep every test.

Strategy cheat-sheet: `st.integers(lo, hi)`, `st.sampled_from([...])`, `st.lists(x, min_size=a,
max_size=b, unique=True)`, `st.tuples(a, b)`, `st.builds(f, ...)`, `@st.composite`, `st.one_of`,
`st.just`, `.filter`/`.map`, and `hypothesis.stateful.RuleBasedStateMachine` for sequences of calls.

""" + PROTOCOL

REGIMES = {"baseline": BASELINE, "pbt": PBT}


def system_prompt(regime: str) -> str:
    from proceedings.core.errors import ProceedingsError

    if regime not in REGIMES:
        raise ProceedingsError(f"unknown prompt regime '{regime}'; choose baseline or pbt")
    return REGIMES[regime]


def prompt_hash(regime: str) -> str:
    return hashlib.sha256(f"{PROMPT_VERSION}\n{system_prompt(regime)}".encode()).hexdigest()[:16]
