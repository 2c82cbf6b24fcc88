"""NIV: Neural Axis Variations: a static TrueType font -> a validated variable font (Benedek et al.).

A transformer over a glyph's points predicts each point's total displacement at a requested axis
location; a Property Embedding conditions it, with explicit terms for pairs of axes. Corner
predictions are written as gvar tuples by inclusion–exclusion, with fvar, instances and STAT.

Public names, in their modules: `data.build_dataset`, `model.NIV`, `convert.convert`, `validate.validate`.
"""
