"""RWOPD: an open SVA property-equivalence checker and reward-weighted on-policy distillation.

Paper: "RWOPD: reward-weighted on-policy distillation for SystemVerilog assertions" (NeurIPS 2026,
papers/09_rwopd.md). Two tools in one folder:
  - the PEC (`check_equivalence`): SVA parsed and type-checked by slang, compiled into monitor
    circuits, equivalence decided both ways with z3 (lasso BMC + k-induction), SymbiYosys as a
    cross-check route;
  - the distillation arms (SFT, OPD, rejection fine-tuning, RWOPD) scored by that PEC.
"""

from proceedings.rwopd.pec import PECResult, Verdict, check_equivalence, reward

__all__ = ["PECResult", "Verdict", "check_equivalence", "reward"]
