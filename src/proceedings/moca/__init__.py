"""MoCA: component-level sparse attention for compositional 3D generation."""
