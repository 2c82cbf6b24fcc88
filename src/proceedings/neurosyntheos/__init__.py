"""NeuroSyntheos: neural tautology prediction for LTL-modulo-theories synthesis (NeurIPS 2026).

CEGRES refines the Boolean abstraction of an LTLt spec one theory tautology per synthesis call;
NeuroSyntheos injects batches of predicted, z3-verified tautologies before each call. Everything
here is sound by construction: a verdict comes only with a checked certificate (a model-checked,
theory-feasible controller or counter-strategy), and nothing unproved is injected.
"""

from proceedings.neurosyntheos.cegres import cegres
from proceedings.neurosyntheos.predictor import NeuroPredictor
from proceedings.neurosyntheos.spec import load_spec, parse_spec

__all__ = ["NeuroPredictor", "cegres", "load_spec", "parse_spec"]
