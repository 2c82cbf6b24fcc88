"""Orthrus: a frozen LLM with a trainable diffusion view on its own KV cache, lossless by consensus.

The dual view (`dual_view`), one round of diffusion drafting and AR verification (`consensus`, on the shared
`core.speculative` loop), self-distillation training (`training`), the exactness/memory audit (`audit`), and
the user's model (`OrthrusModel`).
"""

__all__ = ["OrthrusModel"]


def __getattr__(name: str):
    """`OrthrusModel` on first use: torch and transformers stay out of `proceedings list`, which imports
    every system's package."""
    if name == "OrthrusModel":
        from proceedings.orthrus.model import OrthrusModel

        return OrthrusModel
    raise AttributeError(f"module 'proceedings.orthrus' has no attribute '{name}'")
