"""The tiny pattern-grammar Llama (core.pattern_lm, cached by `make setup`) and a fresh view on it."""

import pytest


@pytest.fixture(scope="session")
def pattern_base():
    """The frozen tiny target, shared: never train or change it in place."""
    from proceedings.core.pattern_lm import tiny_target

    return tiny_target()


@pytest.fixture
def pattern_prompt_list():
    from proceedings.core.pattern_lm import pattern_prompts

    return pattern_prompts(5, 16, 64, seed=11)
