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
