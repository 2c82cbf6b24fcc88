"""Orthrus: a frozen LLM with a trainable diffusion view on its own KV cache, lossless by consensus.

The dual view (`dual_view`), one round of diffusion drafting and AR verification (`consensus`, on the shared
`core.speculative` loop), self-distillation training (`training`), the exactness/memory audit (`audit`), and
the user's model (`OrthrusModel`).
"""

from proceedings.core.lazy import lazy_exports

# torch and transformers stay out of `proceedings list`, which imports every system's package.
__all__ = ["OrthrusModel"]
__getattr__ = lazy_exports(__name__, {"OrthrusModel": "model"})
