"""What every agent returns, and the interface the benchmark runner calls."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from proceedings.pbtbench.problem import Problem


@dataclass
class AgentResult:
    code: str  # the submitted test file
    steps: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    infra_error: str = ""  # the endpoint failed after retries: excluded from recall, reported
    transcript: list[dict[str, Any]] = field(default_factory=list)


class Agent(Protocol):
    name: str

    def describe(self) -> dict[str, Any]:
        """Settings recorded in the run's metadata."""

    def solve(self, problem: Problem, run: int, log_step: Callable[[dict[str, Any]], None]) -> AgentResult:
        """Write a test file for `problem`; `log_step` appends one transcript entry (flushed)."""
