"""Prompt format for NL -> SVA and extraction of the SVA from a model's completion (spec §2.2 step 2)."""

from __future__ import annotations

import re

TEMPLATE = "Write one SystemVerilog assertion property for this specification.\nSpec: {spec}\nSVA:"
_FENCE = re.compile(r"```(?:systemverilog|sv|verilog)?\s*(.*?)```", re.S)
_ASSERT = re.compile(r"assert\s+property\s*\((.*)\)\s*;", re.S)


def format_prompt(spec: str) -> str:
    return TEMPLATE.format(spec=spec.strip())


def target_text(sva: str) -> str:
    """What the model is trained to write after the prompt: a space, the property, a newline."""
    return " " + sva.strip() + "\n"


def extract_sva(completion: str) -> str | None:
    """The property in a completion: a fenced block, an `assert property (...)`, else the first line."""
    fenced = _FENCE.search(completion)
    text = fenced.group(1) if fenced else completion
    statement = _ASSERT.search(text)
    if statement:
        return statement.group(0).strip()
    line = text.strip().split("\n", 1)[0].strip().rstrip(";")
    return line or None
