"""commit0-mini: the Lean4Commit0 analogue, built from real pure-Python libraries (spec §2.7, issue 24).

A task asks for a verified Dafny re-implementation of one core API of an installed library (toolz,
more-itertools, sortedcontainers), or for the proof of a relation across APIs (concat . partition_all
= id; bisect_left + count = bisect_right; count of a concatenation = the sum of the ilens). The
builder (`build-commit0`) writes, per task: the description from the API's own docstring, the
signature, and tests *recorded by running the real library* on Hypothesis-drawn inputs
(`derandomize=True`: the same inputs on every build); a few are visible in `task.json` (what S and P
test code on), the rest go to `hidden_tests.json`, which only the differential check reads
(differential.py). For a relation, the builder evaluates it on the library for every drawn input and
refuses to write the task if it fails once. The Dafny spec (`task.dfy`: the API's meaning as a
recursive function, the method's contract) is written by hand from the docs; the builder leaves a
stub for a new API and never overwrites an authored spec.

Spec-writing rule (fixed before any run): a function whose docs or code describe a left-to-right pass
(a `for` loop, `sum(...)` over the items, Horner's rule) is specified as a left fold, peeling the
back (`F(s[..|s|-1]) op s[|s|-1]`); one described by membership or position without a pass
(sortedcontainers' bisect and count) by the first element (`f(s[0]) + F(s[1..])`). Relations are
stated `{:induction false}`, so their proof is written, not found by Dafny's induction heuristic.
Two APIs also have a Coq spec (`task.v`, `list Z`; the signature's Dafny types are mapped by
`checkers.coq_type`); the sketch agent has no Coq sketches, so the comparison runs their Dafny spec.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import import_module, metadata
from pathlib import Path
from typing import Any, Callable

from proceedings.core.errors import ProceedingsError
from proceedings.verified_codegen.tasks import SHIPPED

COMMIT0 = SHIPPED / "commit0"
VISIBLE_TESTS = 4  # recorded tests shown to the workflows, evenly spaced from the simplest draw to the largest
RECORDED = 40  # Hypothesis examples drawn per API (duplicates dropped)


def _ints(low: int = -9, high: int = 9):
    from hypothesis import strategies as st

    return st.lists(st.integers(low, high), max_size=8)


def _int(low: int = -9, high: int = 9):
    from hypothesis import strategies as st

    return st.integers(low, high)


def _function(module: str, name: str) -> Callable:
    return lambda *args: getattr(import_module(module), name)(*args)


def _sorted_list(method: str) -> Callable:
    """`SortedList(values).method(k)`: sortedcontainers' API is a method of the sorted list."""
    return lambda values, k: getattr(import_module("sortedcontainers").SortedList(values), method)(k)


@dataclass(frozen=True)
class Api:
    """One library API as a commit0-mini task: how to call it, what to draw, the Dafny signature."""

    task: str
    library: str  # import name = PyPI distribution
    qualname: str
    method: str  # the Dafny method the model implements
    params: tuple[tuple[str, str, Callable], ...]  # (name, Dafny type, Hypothesis strategy factory)
    call: Callable[..., Any]

    def signature(self) -> dict:
        return {"name": self.method, "return_type": "int",
                "parameters": [{"param_name": n, "param_type": t} for n, t, _ in self.params]}


@dataclass(frozen=True)
class Relation:
    """A relation across APIs: a proof-only task; the relation is checked on the library while building."""

    task: str
    libraries: tuple[str, ...]
    statement: str  # in Python terms, for the description
    lemma: str
    params: tuple[tuple[str, str, Callable], ...]
    holds: Callable[..., bool]
    docs: tuple[str, ...]  # the APIs whose docstrings describe it


APIS = (
    Api("toolz_count", "toolz", "toolz.count", "CountItems", (("a", "seq<int>", _ints),),
        lambda a: import_module("toolz").count(iter(a))),  # an iterator: toolz's own counting loop, not len()
    Api("more_itertools_ilen", "more_itertools", "more_itertools.ilen", "Ilen", (("a", "seq<int>", _ints),),
        _function("more_itertools", "ilen")),
    Api("more_itertools_quantify", "more_itertools", "more_itertools.quantify", "QuantifyNonzero",
        (("a", "seq<int>", _ints),), _function("more_itertools", "quantify")),
    Api("more_itertools_sum_of_squares", "more_itertools", "more_itertools.sum_of_squares", "SumSquares",
        (("a", "seq<int>", _ints),), _function("more_itertools", "sum_of_squares")),
    Api("more_itertools_polynomial_eval", "more_itertools", "more_itertools.polynomial_eval", "PolynomialEval",
        (("a", "seq<int>", _ints), ("t", "int", _int)), _function("more_itertools", "polynomial_eval")),
    Api("sortedcontainers_bisect_left", "sortedcontainers", "sortedcontainers.SortedList.bisect_left", "BisectLeft",
        (("a", "seq<int>", _ints), ("k", "int", _int)), _sorted_list("bisect_left")),
    Api("sortedcontainers_bisect_right", "sortedcontainers", "sortedcontainers.SortedList.bisect_right",
        "BisectRight", (("a", "seq<int>", _ints), ("k", "int", _int)), _sorted_list("bisect_right")),
    Api("sortedcontainers_count", "sortedcontainers", "sortedcontainers.SortedList.count", "CountValue",
        (("a", "seq<int>", _ints), ("k", "int", _int)), _sorted_list("count")),
)


def _concat_partition_all(n, a):
    toolz = import_module("toolz")
    return list(toolz.concat(toolz.partition_all(n, a))) == a


def _bisect_count(a, k):
    return _sorted_list("bisect_left")(a, k) + _sorted_list("count")(a, k) == _sorted_list("bisect_right")(a, k)


def _count_concat(a, b):
    toolz, mit = import_module("toolz"), import_module("more_itertools")
    return toolz.count(toolz.concat([a, b])) == mit.ilen(a) + mit.ilen(b)


RELATIONS = (
    Relation("rel_concat_partition_all", ("toolz",), "list(concat(partition_all(n, a))) == a for n > 0",
             "ConcatPartitionAll", (("n", "int", lambda: _int(1, 5)), ("s", "seq<int>", _ints)),
             _concat_partition_all, ("toolz.concat", "toolz.partition_all")),
    Relation("rel_bisect_count", ("sortedcontainers",),
             "SortedList(a).bisect_left(k) + SortedList(a).count(k) == SortedList(a).bisect_right(k)",
             "BisectCount", (("s", "seq<int>", _ints), ("k", "int", _int)), _bisect_count,
             ("sortedcontainers.SortedList.bisect_left", "sortedcontainers.SortedList.count",
              "sortedcontainers.SortedList.bisect_right")),
    Relation("rel_count_concat", ("toolz", "more_itertools"),
             "toolz.count(toolz.concat([a, b])) == more_itertools.ilen(a) + more_itertools.ilen(b)",
             "CountConcat", (("a", "seq<int>", _ints), ("b", "seq<int>", _ints)), _count_concat,
             ("toolz.count", "toolz.concat", "more_itertools.ilen")),
)
LIBRARIES = tuple(sorted({api.library for api in APIS} | {lib for rel in RELATIONS for lib in rel.libraries}))


def draw_inputs(params, examples: int = RECORDED) -> list[list]:
    """Distinct argument lists drawn by Hypothesis, the same on every build (`derandomize=True`)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    drawn: list[list] = []

    @settings(max_examples=examples, derandomize=True, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), deadline=None)
    @given(st.tuples(*(factory() for _, _, factory in params)))
    def collect(args):
        args = list(args)
        if args not in drawn:
            drawn.append(args)

    collect()
    return drawn


def docstring(qualname: str) -> str:
    """The first paragraph of an API's docstring, read from the installed library."""
    module, *path = qualname.split(".")
    obj = import_module(module)
    for part in path:
        obj = getattr(obj, part)
    text = (obj.__doc__ or "").strip()
    return " ".join(text.split("\n\n")[0].split())


def _require(library: str) -> str:
    try:
        import_module(library)
        return metadata.version(library.replace("_", "-"))
    except ImportError:
        raise ProceedingsError(f"library '{library}' is not installed: `pip install {library.replace('_', '-')}` "
                               f"(build-commit0 records tests from the real library)") from None


def build(out: Path = COMMIT0, libraries: tuple[str, ...] = LIBRARIES, examples: int = RECORDED) -> list[str]:
    """Write every commit0-mini task of `libraries` under `out`; returns the task ids written."""
    unknown = set(libraries) - set(LIBRARIES)
    if unknown:
        raise ProceedingsError(f"no commit0-mini APIs for {sorted(unknown)}; choose from: {', '.join(LIBRARIES)}")
    versions = {lib: _require(lib) for lib in libraries}
    written = []
    for api in (a for a in APIS if a.library in libraries):
        recorded = [{"input": args, "expected": api.call(*args)} for args in draw_inputs(api.params, examples)]
        visible = set(range(0, len(recorded), max(1, len(recorded) // VISIBLE_TESTS))[:VISIBLE_TESTS])
        meta = {"id": api.task, "source": "commit0", "library": api.library, "library_version": versions[api.library],
                "api": api.qualname, "description": f"{api.qualname}: {docstring(api.qualname)} (here on integers)",
                "signature": api.signature(), "tests": [recorded[i] for i in sorted(visible)],
                "hidden_tests": "hidden_tests.json", "backends": _backends(out / api.task)}
        hidden = [test for i, test in enumerate(recorded) if i not in visible]
        _write(out / api.task, meta, hidden, _stub(api.method, api.params))
        written.append(api.task)
    for rel in (r for r in RELATIONS if set(r.libraries) <= set(libraries)):
        inputs = draw_inputs(rel.params, examples)
        failing = [args for args in inputs if not rel.holds(*args)]
        if failing:
            raise ProceedingsError(f"{rel.task}: the relation '{rel.statement}' fails on the library for {failing[0]}")
        docs = " ".join(f"{q}: {docstring(q)}" for q in rel.docs)
        meta = {"id": rel.task, "source": "commit0", "library": "+".join(rel.libraries),
                "library_version": "+".join(versions[lib] for lib in rel.libraries), "api": list(rel.docs),
                "description": f"Prove: {rel.statement}. {docs}", "relation_checked_on": len(inputs),
                "signature": {"name": rel.lemma, "return_type": "",
                              "parameters": [{"param_name": n, "param_type": t} for n, t, _ in rel.params]},
                "tests": [], "backends": _backends(out / rel.task)}
        _write(out / rel.task, meta, None, _stub(f"{{:induction false}} {rel.lemma}", rel.params, lemma=True))
        written.append(rel.task)
    return written


def _backends(folder: Path) -> dict[str, str]:
    """Dafny always (a stub when new); Coq where an authored `task.v` exists (structural recursion on the list)."""
    return {"dafny": "task.dfy", **({"coq": "task.v"} if (folder / "task.v").exists() else {})}


def _write(folder: Path, meta: dict, hidden: list | None, stub: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "task.json").write_text(json.dumps(meta, indent=1) + "\n")
    if hidden is not None:
        (folder / "hidden_tests.json").write_text(json.dumps(hidden) + "\n")
    if not (folder / "task.dfy").exists():
        (folder / "task.dfy").write_text(stub)


def _stub(name: str, params, lemma: bool = False) -> str:
    """A spec file with every region and no meaning yet: the author writes the preamble and the contract."""
    args = ", ".join(f"{n}: {t}" for n, t, _ in params)
    head = f"lemma {name}({args})\n" if lemma else f"method {name}({args}) returns (r: int)\n"
    return ("// <preamble>\n// TODO: the API's meaning as a recursive function, from its docs\n// </preamble>\n"
            "// <helpers>\n// </helpers>\n// <proofs>\n// </proofs>\n"
            f"// <spec>\n{head}    // TODO: ensures ...\n// </spec>\n// <code>\n{{\n}}\n// </code>\n")


def hidden_tests(task) -> list[dict]:
    """A commit0-mini task's hidden recorded tests (never given to an agent or a workflow)."""
    name = json.loads((Path(task.folder) / "task.json").read_text()).get("hidden_tests") if task.folder else None
    if not name:
        return []
    path = Path(task.folder) / name
    if not path.is_file():
        raise ProceedingsError(f"{task.folder}: hidden tests file '{name}' is missing; rerun build-commit0")
    return json.loads(path.read_text())
