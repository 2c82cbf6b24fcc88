"""An exact unified-diff applier (spec 2.2): zero fuzz, every hunk's context must match exactly.

Patches name files relative to site-packages (`--- a/cachetools/__init__.py`). `apply_patch`
returns the new texts without writing anything, so a patch that does not apply leaves nothing
half-done; the overlay writes the results into a staging folder and renames it into place.
`lint_patch` is the hygiene check: a bug may not add comments or docstrings, touch anything but
library source, or use tell-tale words.
"""

from __future__ import annotations

import ast
import difflib
import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from proceedings.core.errors import ProceedingsError

_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
TELLTALE_WORDS = ("bug", "inject", "wrong", "fixme", "todo", "mutant", "broken", "hack", "typo", "faulty")


class PatchError(ProceedingsError):
    """A patch is malformed or does not apply exactly; the message names the patch, file and hunk."""


@dataclass(frozen=True)
class Hunk:
    old_start: int  # 1-based
    old_lines: tuple[str, ...]
    new_lines: tuple[str, ...]


@dataclass(frozen=True)
class FilePatch:
    path: str  # relative to site-packages
    hunks: tuple[Hunk, ...]


def parse_patch(text: str, name: str = "<patch>") -> list[FilePatch]:
    """Parse a unified diff into per-file hunks."""
    lines = text.splitlines(keepends=True)
    files: list[FilePatch] = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith("--- "):
            i += 1
            continue
        if i + 1 >= len(lines) or not lines[i + 1].startswith("+++ "):
            raise PatchError(f"{name}: line {i + 1}: '---' header without a '+++' line")
        path = _strip_prefix(lines[i + 1][4:].split("\t")[0].strip())
        i += 2
        hunks = []
        while i < len(lines) and lines[i].startswith("@@"):
            match = _HUNK.match(lines[i])
            if not match:
                raise PatchError(f"{name}: line {i + 1}: malformed hunk header {lines[i].strip()!r}")
            old_count = int(match.group(2) or 1)
            new_count = int(match.group(4) or 1)
            i += 1
            old, new = [], []
            while len(old) < old_count or len(new) < new_count:
                if i >= len(lines):
                    raise PatchError(f"{name}: hunk at line {match.group(1)} of {path} is truncated")
                line = lines[i]
                tag, body = line[:1], line[1:]
                if tag == " ":
                    old.append(body), new.append(body)
                elif tag == "-":
                    old.append(body)
                elif tag == "+":
                    new.append(body)
                elif line.startswith("\\"):
                    pass
                else:
                    raise PatchError(f"{name}: line {i + 1}: unexpected {line.rstrip()!r} inside a hunk")
                i += 1
            hunks.append(Hunk(int(match.group(1)), tuple(old), tuple(new)))
        if not hunks:
            raise PatchError(f"{name}: file {path} has no hunks")
        files.append(FilePatch(path, tuple(hunks)))
    if not files:
        raise PatchError(f"{name}: no file headers ('--- a/...', '+++ b/...') found")
    return files


def _strip_prefix(path: str) -> str:
    return path[2:] if path.startswith(("a/", "b/")) else path


def apply_hunks(text: str, hunks: tuple[Hunk, ...], where: str) -> str:
    """Apply hunks with exact context and zero fuzz; raise naming the first hunk that does not match.

    A hunk may sit at an offset from its stated line (another co-injected patch above it changed
    the line count), as with `patch`; its context must still match exactly.
    """
    lines = text.splitlines(keepends=True)
    shift = 0
    for number, hunk in enumerate(hunks, 1):
        expected = max(hunk.old_start - 1, 0) + shift
        start = _find_exact(lines, list(hunk.old_lines), expected)
        if start is None:
            raise PatchError(f"{where}: hunk {number} (line {expected + 1}) does not match the file exactly")
        lines[start:start + len(hunk.old_lines)] = list(hunk.new_lines)
        shift += start - expected + len(hunk.new_lines) - len(hunk.old_lines)
    return "".join(lines)


def _find_exact(lines: list[str], block: list[str], expected: int) -> int | None:
    """The position nearest `expected` where `block` occurs exactly, or None."""
    for distance in range(len(lines) + 1):
        for start in (expected - distance, expected + distance):
            if 0 <= start <= len(lines) - len(block) and lines[start:start + len(block)] == block:
                return start
    return None


def _reversed(hunks: tuple[Hunk, ...]) -> tuple[Hunk, ...]:
    """The hunks that undo `hunks`, positioned in the patched file."""
    undo, offset = [], 0
    for hunk in hunks:
        undo.append(Hunk(hunk.old_start + offset, hunk.new_lines, hunk.old_lines))
        offset += len(hunk.new_lines) - len(hunk.old_lines)
    return tuple(undo)


def apply_patch(read: Callable[[str], str], text: str, name: str, reverse: bool = False) -> dict[str, str]:
    """New texts of the files a patch touches, read through `read(relative_path)`; writes nothing."""
    result: dict[str, str] = {}
    for file_patch in parse_patch(text, name):
        current = result.get(file_patch.path)
        if current is None:
            try:
                current = read(file_patch.path)
            except FileNotFoundError:
                raise PatchError(f"{name}: file '{file_patch.path}' does not exist in the package") from None
        hunks = _reversed(file_patch.hunks) if reverse else file_patch.hunks
        where = f"{name}: {file_patch.path}" + (" (reverse)" if reverse else "")
        result[file_patch.path] = apply_hunks(current, hunks, where)
    return result


def make_patch(path: str, old_text: str, new_text: str, context: int = 3) -> str:
    """A unified diff turning `old_text` into `new_text`, for the file at `path` (authoring aid)."""
    diff = difflib.unified_diff(old_text.splitlines(keepends=True), new_text.splitlines(keepends=True),
                                fromfile=f"a/{path}", tofile=f"b/{path}", n=context)
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in diff)


def replace_once(text: str, old: str, new: str, where: str) -> str:
    """`text` with the single occurrence of `old` replaced; an absent or repeated snippet is an error."""
    count = text.count(old)
    if count != 1:
        raise PatchError(f"{where}: the snippet to replace occurs {count} times (needs exactly one)")
    return text.replace(old, new)


def lint_patch(text: str, name: str, originals: dict[str, str], patched: dict[str, str]) -> list[str]:
    """Hygiene problems of a bug patch (spec 2.2); an empty list means clean."""
    problems = []
    for file_patch in parse_patch(text, name):
        if not file_patch.path.endswith(".py") or re.search(r"(^|/)(tests?|docs?)/", file_patch.path):
            problems.append(f"{name}: touches '{file_patch.path}', which is not library source")
            continue
        before, after = originals[file_patch.path], patched[file_patch.path]
        if _comments(after) - _comments(before):
            problems.append(f"{name}: adds a comment to {file_patch.path}")
        if _docstrings(after) - _docstrings(before):
            problems.append(f"{name}: adds or changes a docstring in {file_patch.path}")
        new_names = _identifiers(after) - _identifiers(before)
        for word in TELLTALE_WORDS:
            if any(word in ident.lower() for ident in new_names):
                problems.append(f"{name}: a new identifier in {file_patch.path} contains '{word}'")
    return problems


def _comments(source: str) -> set[str]:
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return {tok.string.strip() for tok in tokens if tok.type == tokenize.COMMENT}


def _docstrings(source: str) -> set[str]:
    tree = ast.parse(source)
    nodes = [tree] + [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    return {doc for n in nodes if (doc := ast.get_docstring(n)) is not None}


def _identifiers(source: str) -> set[str]:
    tree = ast.parse(source)
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    names |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    names |= {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    names |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments) for a in n.args}
    return names


def read_from(root: Path) -> Callable[[str], str]:
    """A reader of package files relative to `root` (site-packages or an overlay)."""
    return lambda relative: (root / relative).read_text()
