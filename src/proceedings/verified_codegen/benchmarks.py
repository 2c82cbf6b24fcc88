"""Loaders for the public benchmarks in their upstream layouts, and AlgoVeri's Dafny-4 -> 2.3 down-porter.

- Verina (sunblaze-ucb/verina, Apache-2.0): `datasets/verina/<id>/{task.json, description.txt,
  task.lean, test.json}`; the Lean file carries `-- !benchmark @start code` regions. Loaded as Lean tasks
  (checked wherever a Lean toolchain exists; here they are `unavailable`).
- AlgoVeri (haoyuzhao123/algoveri, Apache-2.0): `algoveri_data/<algo>/{dafny_nl.txt, dafny_spec.dfy}`
  with `// <code>` tags written for Dafny 4. `down_port` rewrites what Dafny 2.3 spells differently
  (`ghost function` -> `function`, a compiled `function` -> `function method`, likewise `predicate`) and
  names what it cannot convert (datatype member declarations, the `seq(n, i => ...)` constructor, `<<`).

The data are read from the user's copy (default `../shared/data/verified_codegen/`), never copied.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from proceedings.core.errors import ProceedingsError
from proceedings.verified_codegen.tasks import SpecFile, Task, split_regions

DEFAULT_ROOT = Path("../shared/data/verified_codegen")

UNSUPPORTED = (
    (re.compile(r"^\s*datatype\b(?:(?!\n\s*\n|\n\s*(?:ghost|function|predicate|method|lemma|datatype|type|const|//))"
                r"[^{])*\{", re.M), "datatype member declarations"),
    (re.compile(r"\bseq\s*\(\s*[^,()]+,\s*\w+\s*=>"), "the seq(n, i => ...) constructor"),
    (re.compile(r"<<"), "`<<` on int"),
)


@dataclass(frozen=True)
class Conversion:
    name: str
    text: str  # the down-ported spec file ("" when it cannot be converted)
    unsupported: tuple[str, ...]  # why not, one reason per construct


def down_port(name: str, text: str) -> Conversion:
    """Dafny 4 spec text -> Dafny 2.3, or the constructs that have no 2.3 spelling."""
    reasons = tuple(reason for pattern, reason in UNSUPPORTED if pattern.search(text))
    if reasons:
        return Conversion(name, "", reasons)
    out = re.sub(r"\b(function|predicate)(?!\s+method)\b", r"\1 method", text)  # Dafny 4: compiled by default
    out = re.sub(r"\bghost\s+(function|predicate)\s+method\b", r"\1", out)  # Dafny 4 ghost = 2.3 plain
    out = re.sub(r"\btwostate\s+(function|predicate)\s+method\b", r"twostate \1", out)
    return Conversion(name, out, ())


def load_algoveri(root: str | Path = DEFAULT_ROOT / "algoveri") -> tuple[list[Task], list[Conversion]]:
    """Every AlgoVeri algorithm whose Dafny spec down-ports, as a Dafny task (tests: none upstream)."""
    folder = Path(root) / "algoveri_data"
    if not folder.is_dir():
        raise ProceedingsError(f"no AlgoVeri copy at '{root}' (expected algoveri_data/<algo>/dafny_spec.dfy)")
    tasks, conversions = [], []
    for spec_path in sorted(folder.glob("*/dafny_spec.dfy")):
        name = spec_path.parent.name
        conversion = down_port(name, spec_path.read_text())
        conversions.append(conversion)
        if conversion.unsupported:
            continue
        nl = spec_path.with_name("dafny_nl.txt")
        pieces = split_regions(conversion.text, "dafny", spec_path)
        tasks.append(Task(name, "algoveri", nl.read_text() if nl.exists() else "", {"name": name, "parameters": []},
                          (), {"dafny": SpecFile("dafny", spec_path, pieces)}, spec_path.parent))
    return tasks, conversions


def load_verina(root: str | Path = DEFAULT_ROOT / "verina") -> list[Task]:
    """Verina's tasks as Lean tasks (signature, tests and the Lean file with its regions)."""
    folder = Path(root) / "datasets" / "verina"
    if not folder.is_dir():
        raise ProceedingsError(f"no Verina copy at '{root}' (expected datasets/verina/<id>/task.json)")
    tasks = []
    for meta_path in sorted(folder.glob("*/task.json")):
        try:
            meta = json.loads(meta_path.read_text())
        except json.JSONDecodeError as err:
            raise ProceedingsError(f"{meta_path}:{err.lineno}: not valid JSON ({err.msg})") from None
        base = meta_path.parent
        lean_path = base / meta.get("lean_file", "task.lean")
        tests_path = base / meta.get("test_file", "test.json")
        description = base / meta.get("description_file", "description.txt")
        tests = json.loads(tests_path.read_text()) if tests_path.exists() else []
        pieces = split_regions(lean_path.read_text(), "lean", lean_path)
        tasks.append(Task(meta["id"], "verina", description.read_text() if description.exists() else "",
                          meta.get("signature", {}), tuple(tests), {"lean": SpecFile("lean", lean_path, pieces)}, base))
    return tasks


def lean_value(value):
    """A Verina test value as JSON: Lean's array and list literals (`#[1, -2]`, `[0, 1]`) become lists;
    numbers and booleans are already JSON."""
    if not isinstance(value, str):
        return value
    text = value.strip().removeprefix("#")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise ProceedingsError(f"Verina test value {value!r} is not a number, boolean or literal list of them") from None


def verina_tests(task: Task, order: list[str]) -> list[dict]:
    """A Verina task's tests for a port: inputs in the port's parameter order (by Verina's names)."""
    return [{"input": [lean_value(test["input"][name]) for name in order], "expected": lean_value(test["expected"])}
            for test in task.tests]
