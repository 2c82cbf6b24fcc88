"""The backend-neutral task format (spec §2.1): a task folder, its spec files and their regions.

A task folder holds `task.json` (id, source, description, signature, tests, the spec file per
backend) and one spec file per backend. Each spec file is cut into regions by markers: Dafny uses
AlgoVeri's `// <name>` ... `// </name>` tags, Coq `(* @start name *)` ... `(* @end name *)`. Editable
regions (Dafny: helpers, proofs, code; Coq: code, proof_aux, proof) carry the reference solution in
the shipped file; everything else is protected and is re-inserted from the task before every check,
whatever a candidate wrote (`Task.assemble`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proceedings.core.errors import ProceedingsError

SHIPPED = Path(__file__).with_name("tasks")
EDITABLE = {"dafny": ("helpers", "proofs", "code"), "coq": ("code", "proof_aux", "proof"), "lean": ("code_aux", "code", "proof_aux", "proof")}
SUFFIX = {"dafny": ".dfy", "coq": ".v", "lean": ".lean"}
_MARKERS = {
    "dafny": (re.compile(r"^\s*//\s*<(\w+)>\s*$"), re.compile(r"^\s*//\s*</(\w+)>\s*$")),
    "coq": (re.compile(r"^\s*\(\*\s*@start\s+(\w+)\s*\*\)\s*$"), re.compile(r"^\s*\(\*\s*@end\s+(\w+)\s*\*\)\s*$")),
    "lean": (re.compile(r"^\s*--\s*!benchmark\s+@start\s+(\w+)\b.*$"), re.compile(r"^\s*--\s*!benchmark\s+@end\s+(\w+)\b.*$")),
}


@dataclass(frozen=True)
class Piece:
    """A stretch of a spec file: protected text (`region` empty) or the body of an editable region."""

    text: str
    region: str = ""


@dataclass(frozen=True)
class SpecFile:
    """One backend's spec file, split into protected text and named regions (the bodies are the reference)."""

    backend: str
    path: Path
    pieces: tuple[Piece, ...]

    @property
    def reference(self) -> dict[str, str]:
        return {p.region: p.text for p in self.pieces if p.region and p.region in EDITABLE.get(self.backend, ())}

    def assemble(self, solution: dict[str, str]) -> str:
        """The file a checker sees: protected text from the task, editable regions from `solution`."""
        unknown = set(solution) - set(EDITABLE[self.backend])
        if unknown:
            raise ProceedingsError(f"solution names regions {sorted(unknown)} that {self.backend} tasks do not have")
        out = []
        for piece in self.pieces:
            editable = piece.region in EDITABLE[self.backend]
            out.append(solution.get(piece.region, "") if editable else piece.text)
        return "".join(out)


@dataclass(frozen=True)
class Task:
    id: str
    source: str
    description: str
    signature: dict[str, Any]
    tests: tuple[dict[str, Any], ...]
    specs: dict[str, SpecFile] = field(default_factory=dict)
    folder: Path | None = None

    @property
    def backends(self) -> tuple[str, ...]:
        return tuple(self.specs)

    def assemble(self, backend: str, solution: dict[str, str]) -> str:
        return self.spec(backend).assemble(solution)

    def spec(self, backend: str) -> SpecFile:
        if backend not in self.specs:
            raise ProceedingsError(f"task '{self.id}' has no {backend} spec (it has: {', '.join(self.specs)})")
        return self.specs[backend]


def split_regions(text: str, backend: str, path: Path) -> tuple[Piece, ...]:
    """Cut a spec file at its region markers; a marker without its partner is an error naming file and line.

    The markers themselves stay protected text; only the lines between them form a region's body.
    """
    start, end = _MARKERS[backend]
    pieces: list[Piece] = []
    protected: list[str] = []
    body: list[str] = []
    open_name, open_line = "", 0
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        opened, closed = start.match(line), end.match(line)
        if opened and not open_name:
            protected.append(line)
            pieces.append(Piece("".join(protected)))
            protected, open_name, open_line = [], opened.group(1), number
        elif closed:
            if closed.group(1) != open_name:
                raise ProceedingsError(f"{path}:{number}: closing marker '{closed.group(1)}' without its opening one")
            pieces.append(Piece("".join(body), open_name))
            body, open_name = [], ""
            protected.append(line)
        elif open_name:
            if opened:
                raise ProceedingsError(f"{path}:{number}: region '{opened.group(1)}' opens inside '{open_name}'")
            body.append(line)
        else:
            protected.append(line)
    if open_name:
        raise ProceedingsError(f"{path}:{open_line}: region '{open_name}' is never closed")
    pieces.append(Piece("".join(protected)))
    names = [p.region for p in pieces if p.region]
    missing = [r for r in EDITABLE.get(backend, ()) if r not in names]
    if missing:
        raise ProceedingsError(f"{path}:1: {backend} spec lacks the editable region(s) {', '.join(missing)}")
    editable = [n for n in names if n in EDITABLE.get(backend, ())]
    if len(editable) != len(set(editable)):
        raise ProceedingsError(f"{path}:1: an editable region appears twice ({', '.join(editable)})")
    return tuple(pieces)


def load_task(folder: str | Path) -> Task:
    """Read one task folder (task.json + spec files); errors name the file and, where known, the line."""
    folder = Path(folder)
    meta_path = folder / "task.json"
    if not meta_path.is_file():
        raise ProceedingsError(f"{folder}: no task.json (a task folder holds task.json and its spec files)")
    try:
        meta = json.loads(meta_path.read_text())
    except json.JSONDecodeError as err:
        raise ProceedingsError(f"{meta_path}:{err.lineno}: not valid JSON ({err.msg})") from None
    for key in ("id", "signature", "tests", "backends"):
        if key not in meta:
            raise ProceedingsError(f"{meta_path}:1: missing key '{key}'")
    specs = {}
    for backend, name in meta["backends"].items():
        if backend not in _MARKERS:
            raise ProceedingsError(f"{meta_path}:1: unknown backend '{backend}' (dafny, coq, lean)")
        path = folder / name
        if not path.is_file():
            raise ProceedingsError(f"{meta_path}:1: spec file '{name}' for {backend} does not exist")
        specs[backend] = SpecFile(backend, path, split_regions(path.read_text(), backend, path))
    arity = len(meta["signature"].get("parameters", []))
    for number, test in enumerate(meta["tests"]):
        if "input" not in test or "expected" not in test or len(test["input"]) != arity:
            raise ProceedingsError(f"{meta_path}:1: test {number} needs 'input' ({arity} values) and 'expected'")
    return Task(meta["id"], meta.get("source", "custom"), meta.get("description", ""), meta["signature"],
                tuple(meta["tests"]), specs, folder)


def load_tasks(root: str | Path = SHIPPED, ids: tuple[str, ...] | None = None) -> list[Task]:
    """Every task folder under `root` (sorted by id), or only `ids`, in the order given."""
    root = Path(root)
    if not root.is_dir():
        raise ProceedingsError(f"task directory '{root}' does not exist")
    if ids is None:
        return [load_task(p.parent) for p in sorted(root.glob("*/task.json"))]
    return [load_task(root / i) for i in ids]
