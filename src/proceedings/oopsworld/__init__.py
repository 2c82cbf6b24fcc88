"""SeamlessWorld / OopsWorld: operation-driven world generation (paper 07).

A typed operator taxonomy (8 families, 23 operators, `taxonomy.toml`) turns every boundary of a sprite-world
episode into a program with change and preserve semantics; SeamlessWorld renders the episodes exactly with
both prompt surfaces and schema-derived probes; OopsWorld is a chunk-causal generator trained on operation
prompts by decoupled distillation from a scene-prompted teacher, compared with scene-prompt switching (B1)
and op-SFT (B2).
"""

from proceedings.oopsworld.taxonomy import FAMILIES, OPERATORS, Program, ProgramError

__all__ = ["FAMILIES", "OPERATORS", "Program", "ProgramError"]
