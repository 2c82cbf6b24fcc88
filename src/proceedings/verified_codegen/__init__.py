"""Plan-first verified code generation, judged by real proof checkers (paper: ../shared/papers/04_verified_codegen.md).

A task (`tasks.load_task`) is a spec file per backend with protected text and editable regions; a
`checkers.Checker` (Coq 8.16, Dafny 2.3 + Z3, Lean behind the same interface) says "verified" only
from its exit status plus the cheat gates (`cheats.scan`, `Print Assumptions`, `/noCheating:1`).
`workflows.solve` runs J (joint + repair), S (sequential: code, then proof) or P (PlanFirst: plan,
scaffold modulo lemmas, discharge, replan) for any `agents.Agent` on one checker-invocation budget;
`sketch.SketchAgent` is the search-based proposer, `experiment.reproduce` the comparison.
"""
