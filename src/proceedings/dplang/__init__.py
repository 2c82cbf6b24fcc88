"""Differentially private language identification and generation in the agnostic statistical setting.

Paper: "Differentially private language identification and generation" (NeurIPS 2026; abstract in
shared/papers/10_dplang.md). From i.i.d. samples of an arbitrary distribution D, identify the
language of a collection that best explains D, or generate unseen strings of it. Approximate
(ε, δ)-DP keeps the non-private error exponents; pure ε-DP multiplies them by min{1, ε}. This
package implements the collections, the project's agnostic objectives (objectives.py), the three
forms of each algorithm, exact privacy audits, exact and Monte Carlo error calculators, rate fits
and two-point lower bounds.

    from proceedings.dplang import families, pure_identifier, error_curve, fit_rate
    inst = families.two_language(p_a=.35, p_b=.30, p_c=.25)
    curve = error_curve(inst, pure_identifier(eps=0.5), ns=[800, 1600, 3200, 6400])
    fit = fit_rate([p.n for p in curve], [p.log_err for p in curve])
"""

from proceedings.core.lazy import lazy_exports

# Public names, imported on first use so that `proceedings list` (which imports this package to
# find experiment.py) does not pay for numpy/scipy.
_API = {
    "two_point": "bounds", "error_curve": "evaluate", "error_point": "evaluate",
    "np_generator": "generation", "pure_generator": "generation", "approx_generator": "generation",
    "np_identifier": "identification", "pure_identifier": "identification", "approx_identifier": "identification",
    "AtomUnion": "languages", "Collection": "languages", "Progression": "languages",
    "RegularLanguage": "languages", "BOTTOM": "learner", "audit": "privacy_audit", "fit_rate": "rates",
}
__all__ = sorted(_API) + ["families"]
__getattr__ = lazy_exports(__name__, _API, modules=("families",))
