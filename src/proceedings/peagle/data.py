"""Prompts and targets: a pattern grammar with a tiny target trained on it (the tiny preset;
`core.pattern_lm`, shared with Orthrus), and ShareGPT first turns with SmolLM2's own greedy responses
(the small preset; `core.selfdistill`).
"""

from __future__ import annotations

from proceedings.core.pattern_lm import TinyTargetConfig, pattern_prompts, pattern_sequences, tiny_target

__all__ = ["TinyTargetConfig", "pattern_prompts", "pattern_sequences", "tiny_target", "warm_up"]


def warm_up() -> str:
    """`make setup`: train and cache the tiny target the tests and the tiny preset use."""
    tiny_target()
    return "peagle: tiny pattern-grammar target cached"
