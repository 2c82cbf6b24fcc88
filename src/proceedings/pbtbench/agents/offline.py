"""Offline agents without an LLM: the ceiling, the paper's premise and the floor."""

from __future__ import annotations

from typing import Any, Callable

from proceedings.pbtbench.agents.base import AgentResult
from proceedings.pbtbench.problem import Problem
from proceedings.pbtbench.test_files import default_strategy_test_file, reference_test_file


class RenderedFileAgent:
    """Submits a test file rendered from the problem, in one step."""

    def __init__(self, name: str, render: Callable[[Problem], str]):
        self.name, self.render = name, render

    def describe(self) -> dict[str, Any]:
        return {"agent": self.name}

    def solve(self, problem: Problem, run: int, log_step: Callable[[dict[str, Any]], None]) -> AgentResult:
        code = self.render(problem)
        log_step({"step": 1, "action": "submit", "chars": len(code)})
        return AgentResult(code=code, steps=1)


def _reference(problem: Problem) -> str:
    return reference_test_file(problem, problem.admitted_bugs())


def _default_strategy(problem: Problem) -> str:
    return default_strategy_test_file(problem, problem.admitted_bugs())


def _empty(problem: Problem) -> str:
    return ""


def ReferenceAgent() -> RenderedFileAgent:
    """The hidden reference properties with their strategies: must score recall 1.0."""
    return RenderedFileAgent("reference", _reference)


def DefaultStrategyAgent() -> RenderedFileAgent:
    """The same properties with every argument drawn from st.from_type(annotation) (spec 2.3)."""
    return RenderedFileAgent("default-strategy", _default_strategy)


def EmptyAgent() -> RenderedFileAgent:
    """An empty file: recall 0 by construction; proves the scorer credits nothing."""
    return RenderedFileAgent("empty", _empty)


CHEAT = '''"""An attack, not a test: finds bugs by reading what the sandbox must hide (issue 16)."""
import os

OVERLAY = os.environ.get("PBTBENCH_OVERLAY", "")
CLEAN = {clean!r}  # relative path -> the installed, clean copy on the host
PATCHES = {patches!r}  # bug -> its patch file in the repository
SECRETS = {secrets!r}  # hidden reference properties and lock file


def _read(path):
    try:
        with open(path, errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


def test_the_overlay_equals_the_clean_copy():
    for relative, clean in CLEAN.items():
        text = _read(clean)
        if text is not None:
            assert _read(os.path.join(OVERLAY, relative)) == text, relative


def test_the_patches_lines_are_absent():
    for bug, patch in PATCHES.items():
        for line in (_read(patch) or "").splitlines():
            if line.startswith("+") and not line.startswith("+++") and line[1:].strip():
                for relative in CLEAN:
                    assert line[1:] not in (_read(os.path.join(OVERLAY, relative)) or ""), bug


def test_the_hidden_files_are_unreadable_and_the_overlay_unwritable():
    assert [p for p in SECRETS if _read(p) is not None] == []
    for relative in CLEAN:
        try:
            open(os.path.join(OVERLAY, relative), "a").close()
        except OSError:
            continue
        raise AssertionError("the overlay is writable")
'''


def _cheat(problem: Problem) -> str:
    from proceedings.pbtbench.overlay import installed_site_packages, package_files

    site = installed_site_packages(problem)
    clean = {rel: str(site / rel) for rel in package_files(problem) if rel.endswith(".py")}
    patches = {bug.id: str(bug.patch) for bug in problem.bugs}
    secrets = [str(problem.props_file), str(problem.strategies_file), str(problem.lock_file)]
    return CHEAT.format(clean=clean, patches=patches, secrets=secrets)


def CheatAgent() -> RenderedFileAgent:
    """Reads the clean library, the patches and the hidden properties: must score 0 in the sandbox."""
    return RenderedFileAgent("cheat", _cheat)
