"""From CEGRES traces to a NeuroSyntheos predictor (paper §3; spec §2.3): trace collection on the
training split, the template library of final tautology sets, GNN and tautology-model training, and the gate's measure
"does the first verified batch imply CEGRES's final set?".
"""

from __future__ import annotations

import time

from proceedings.core.progress import progress_bar
from proceedings.neurosyntheos.bounded import Budget
from proceedings.neurosyntheos.cegres import Run, State, cegres
from proceedings.neurosyntheos.predictor import NeuroPredictor, solved_from_trace
from proceedings.neurosyntheos.spec import Spec


def collect_traces(specs: list[Spec], budget_s: float, max_size: int = 6) -> list[Run]:
    """CEGRES (one tautology per call) on every training spec; the runs carry their traces."""
    return [cegres(spec, budget_s, "cegres", None, 1, max_size)
            for spec in progress_bar(specs, desc="neurosyntheos traces", unit="spec")]


def fit_predictor(specs: list[Spec], runs: list[Run], steps: int = 300, seed: int = 0,
                  lm_steps: int = 200) -> tuple[NeuroPredictor, dict]:
    """Template library from the solved training runs; the GNN on their final sets (clauses over
    the spec's own literals with at most two literals: what the scorer can rank); the autoregressive
    model on every clause of every training trace (`lm_steps` = 0: no model)."""
    from proceedings.neurosyntheos import tautology_lm
    from proceedings.neurosyntheos.gnn import train
    solved = [(spec, run) for spec, run in zip(specs, runs) if run.solved]
    library = [solved_from_trace(spec, run.trace) for spec, run in solved]
    spec_props = {spec.name: {lit.prop for lit in spec.literals} for spec in specs}
    examples = [(spec, {t.clause for t in run.tautologies
                        if len(t.clause) <= 2 and all(p in spec_props[spec.name] for p, _ in t.clause)})
                for spec, run in solved]
    start = time.process_time()
    scorer, losses = train(examples, steps=steps, seed=seed) if examples else (None, [])
    gnn_cpu_s = time.process_time() - start
    sequences = [(spec, clause) for spec, run in zip(specs, runs) for clause in solved_from_trace(spec, run.trace).clauses]
    start = time.process_time()
    lm, lm_losses = tautology_lm.train(sequences, steps=lm_steps, seed=seed) if sequences and lm_steps else (None, [])
    info = {"train_specs": len(specs), "train_solved": len(solved),
            "train_tautologies": sum(len(run.tautologies) for _, run in solved),
            "gnn_steps": steps if examples else 0, "gnn_train_cpu_s": round(gnn_cpu_s, 3),
            "gnn_loss_first": losses[0] if losses else None, "gnn_loss_last": losses[-1] if losses else None,
            "lm_sequences": len(sequences), "lm_steps": lm_steps if lm else 0,
            "lm_parameters": sum(p.numel() for p in lm.parameters()) if lm else 0,
            "lm_train_cpu_s": round(time.process_time() - start, 3),
            "lm_loss_first": lm_losses[0] if lm_losses else None, "lm_loss_last": lm_losses[-1] if lm_losses else None}
    return NeuroPredictor(library=library, scorer=scorer, lm=lm), info


def batch_implies(spec: Spec, predictor: NeuroPredictor, reference: Run, limit: int = 16) -> float:
    """Fraction of the reference run's final tautologies that the predictor's first verified batch
    (≤ limit clauses) implies propositionally (z3 over the literals, matched by their SMT-LIB text)."""
    import z3
    state = State(spec, list(spec.literals))
    predictor.inject(state, 1, limit=limit, budget=Budget(30.0))
    ref_table = reference.table()
    atoms = {lit.prop: z3.Bool(lit.prop) for lit in state.literals}
    for lit in reference.literals:  # the reference's literals, matched to the batch's by equivalence
        prop = state.find(lit.expr)
        atoms.setdefault(f"ref_{lit.prop}", atoms[prop] if prop else z3.Bool(f"ref_{lit.prop}"))

    def clause(props, table, prefix):
        return z3.Or([atoms[prefix + p] if pol else z3.Not(atoms[prefix + p]) for p, pol in props])

    batch = [clause(t.clause, state.table(), "") for t in state.tautologies]
    if not reference.tautologies:
        return 1.0
    implied = 0
    for t in reference.tautologies:
        s = z3.Solver()
        s.add(*batch, z3.Not(clause(t.clause, ref_table, "ref_")))
        implied += s.check() == z3.unsat
    return implied / len(reference.tautologies)
