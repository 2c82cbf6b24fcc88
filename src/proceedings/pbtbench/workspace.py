"""The agent's view of a problem (spec 2.6): docs, example tests and the library source (all bugs
applied, read-only). Patches, reference properties and lock files are never part of it."""

from __future__ import annotations

import shutil
from pathlib import Path

from proceedings.core.errors import ProceedingsError
from proceedings.pbtbench.overlay import build_overlay
from proceedings.pbtbench.problem import Problem

PAGE_CHARS = 6000  # a READ without a length
MAX_PAGE_CHARS = 20000


class Workspace:
    """Files an agent may read, addressed as docs/..., existing_tests/..., library/..."""

    def __init__(self, problem: Problem):
        self.problem = problem
        self.overlay = build_overlay(problem, tuple(b.id for b in problem.admitted_bugs()))
        self.files: dict[str, Path] = {f"docs/{d.name}": d for d in problem.docs}
        self.files.update({f"existing_tests/{t.name}": t for t in problem.existing_tests})
        for path in sorted(self.overlay.path.rglob("*.py")):
            self.files[f"library/{path.relative_to(self.overlay.path)}"] = path

    def read(self, name: str, offset: int = 0, length: int | None = None) -> str:
        """Characters [offset, offset + length) of a file, with a line saying how to read on."""
        name = name.strip().strip("`'\"")
        path = self.files.get(name)
        if path is None:
            return f"No such file: {name!r}. LIST shows the files."
        text = path.read_text(errors="replace")
        length = PAGE_CHARS if length is None else max(1, min(length, MAX_PAGE_CHARS))
        end = min(len(text), offset + length)
        header = f"{name}: characters {offset}-{end} of {len(text)}"
        more = f"\n... READ {name} {end} to read on" if end < len(text) else ""
        return f"{header}\n{text[offset:end]}{more}"

    def listing(self, prefix: str = "") -> str:
        """The workspace files under `prefix`, with their sizes in characters."""
        rows = [f"{name} ({len(path.read_text(errors='replace'))} characters)"
                for name, path in self.files.items() if name.startswith(prefix.strip().strip("`'\""))]
        return "\n".join(rows) if rows else f"No files under {prefix!r}; LIST alone shows every file."

    def task_text(self, docs_chars: int) -> str:
        """The first message: what to test, the docs (truncated to `docs_chars`), the file list."""
        p = self.problem
        docs = "\n\n".join(d.read_text() for d in p.docs)
        if len(docs) > docs_chars:
            docs = docs[:docs_chars] + "\n... (truncated; READ docs/ files for the rest)"
        examples = "\n\n".join(t.read_text() for t in p.existing_tests)
        return (f"# {p.title}\n\nLibrary: {p.library} {p.version} (import {', '.join(p.import_names)}).\n"
                f"Public API in scope: {', '.join(p.scope)}.\n\n## Documentation\n\n{docs}\n\n"
                f"## Existing example tests (they pass)\n\n```python\n{examples}\n```\n\n"
                f"## Workspace files\n\n" + self.listing())

    def materialise(self, target: Path) -> Path:
        """Copy the agent's view into `target` (for people and external agents)."""
        if target.exists() and any(target.iterdir()):
            raise ProceedingsError(f"'{target}' is not empty; choose a new folder")
        for name, path in self.files.items():
            destination = target / name
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, destination)
        (target / "pbt_test.py").write_text("")
        return target
