"""Agents that write property-based tests for a problem (spec 2.6).

Offline: `reference` (the hidden properties: the ceiling), `default-strategy` (the same properties
with st.from_type strategies: the paper's premise), `empty` (the floor), `cheat` (an attack on the
sandbox: reads the clean library, the patches and the hidden properties; must score 0). LLM: `ChatAgent`, any
OpenAI-compatible endpoint (a hosted model, vLLM, llama.cpp, or `serve-local` for SmolLM2), in the
`baseline` or `pbt` prompt regime, with a loop that can run its tests before it submits.
"""

from proceedings.pbtbench.agents.base import Agent, AgentResult
from proceedings.pbtbench.agents.offline import CheatAgent, DefaultStrategyAgent, EmptyAgent, ReferenceAgent

__all__ = ["Agent", "AgentResult", "ReferenceAgent", "DefaultStrategyAgent", "EmptyAgent", "CheatAgent", "make_agent"]


def make_agent(name: str, **options) -> Agent:
    """An agent by its CLI name: reference, default-strategy, empty, cheat, openai."""
    from proceedings.core.errors import ProceedingsError

    if name == "reference":
        return ReferenceAgent()
    if name == "default-strategy":
        return DefaultStrategyAgent()
    if name == "empty":
        return EmptyAgent()
    if name == "cheat":
        return CheatAgent()
    if name == "openai":
        from proceedings.pbtbench.agents.chat import ChatAgent

        return ChatAgent(**options)
    raise ProceedingsError(f"unknown agent '{name}'; choose reference, default-strategy, empty, cheat or openai")
