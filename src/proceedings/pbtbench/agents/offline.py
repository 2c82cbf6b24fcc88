"""Offline agents without an LLM: the ceiling, the paper's premise and the floor."""

from __future__ import annotations

from typing import Any, Callable

from proceedings.pbtbench.agents.base import AgentResult
from proceedings.pbtbench.problem import Problem
from proceedings.pbtbench.test_files import default_strategy_test_file, reference_test_file


class ReferenceAgent:
    """Submits the hidden reference properties with their strategies: must score recall 1.0."""

    name = "reference"

    def describe(self) -> dict[str, Any]:
        return {"agent": self.name}

    def solve(self, problem: Problem, run: int, log_step: Callable[[dict[str, Any]], None]) -> AgentResult:
        code = reference_test_file(problem, problem.admitted_bugs())
        log_step({"step": 1, "action": "submit", "chars": len(code)})
        return AgentResult(code=code, steps=1)


class DefaultStrategyAgent:
    """The same properties with every argument drawn from st.from_type(annotation) (spec 2.3)."""

    name = "default-strategy"

    def describe(self) -> dict[str, Any]:
        return {"agent": self.name}

    def solve(self, problem: Problem, run: int, log_step: Callable[[dict[str, Any]], None]) -> AgentResult:
        code = default_strategy_test_file(problem, problem.admitted_bugs())
        log_step({"step": 1, "action": "submit", "chars": len(code)})
        return AgentResult(code=code, steps=1)


class EmptyAgent:
    """Submits an empty file: recall 0 by construction, and it proves the scorer credits nothing."""

    name = "empty"

    def describe(self) -> dict[str, Any]:
        return {"agent": self.name}

    def solve(self, problem: Problem, run: int, log_step: Callable[[dict[str, Any]], None]) -> AgentResult:
        log_step({"step": 1, "action": "submit", "chars": 0})
        return AgentResult(code="", steps=1)
