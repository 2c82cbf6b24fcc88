"""Saving and loading a trained predictor (template library, GNN and tautology-model weights), and training one from
folders written by `gen-bench` and `collect-traces`."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from proceedings.core.errors import ProceedingsError
from proceedings.neurosyntheos.predictor import NeuroPredictor, Solved


def save_predictor(predictor: NeuroPredictor, path: str | Path) -> Path:
    import torch
    from proceedings.neurosyntheos.tautology_lm import state
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"library": [asdict(s) for s in predictor.library],
                "gnn": predictor.scorer.model.state_dict() if predictor.scorer else None,
                "lm": state(predictor.lm) if predictor.lm is not None else None}, path)
    return path


def load_predictor(path: str | Path) -> NeuroPredictor:
    import torch
    from proceedings.neurosyntheos.gnn import ClauseScorer, build_model
    from proceedings.neurosyntheos.tautology_lm import from_state
    path = Path(path)
    if not path.is_file():
        raise ProceedingsError(f"predictor file '{path}' does not exist; make one with `proceedings neurosyntheos train`")
    try:
        state = torch.load(path, weights_only=True)
    except Exception as err:  # torch raises several types for a damaged file
        raise ProceedingsError(f"predictor file '{path}' cannot be read ({type(err).__name__})") from None
    library = [Solved(s["template"], list(s["constants"]), [tuple(map(tuple, c)) for c in s["clauses"]])
               for s in state["library"]]
    scorer = None
    if state.get("gnn") is not None:
        model = build_model()
        model.load_state_dict(state["gnn"])
        scorer = ClauseScorer(model.eval())
    lm = from_state(state["lm"]) if state.get("lm") is not None else None
    return NeuroPredictor(library=library, scorer=scorer, lm=lm)


def train_from_folder(bench: Path, traces: Path, steps: int, seed: int, lm_steps: int = 200) -> tuple[NeuroPredictor, dict]:
    """Rebuild each traced spec's final set from its trace.jsonl, then train (`training.fit_predictor`)."""
    from proceedings.neurosyntheos.cegres import Run, State
    from proceedings.neurosyntheos.families import read_bench
    from proceedings.neurosyntheos.predictor import parse_smt
    from proceedings.neurosyntheos.training import fit_predictor
    specs, runs = [], []
    for spec in read_bench(bench):
        folder = traces / spec.name
        if not (folder / "report.json").exists():
            continue
        report = json.loads((folder / "report.json").read_text())
        records = [json.loads(line) for line in (folder / "trace.jsonl").read_text().splitlines() if line.strip()]
        state = State(spec, list(spec.literals))
        for r in records:
            clause = set()
            for lit in r["clause"]:
                expr = parse_smt(lit["smt"], spec)
                prop = state.find(expr) or state.intern(expr, "qe")
                clause.add((prop, lit["polarity"]))
            state.add(frozenset(clause), "cegres", r["iteration"])
        runs.append(Run(spec.name, "cegres", verdict=report["verdict"], tautologies=state.tautologies,
                        literals=state.literals, trace=records))
        specs.append(spec)
    if not specs:
        raise ProceedingsError(f"no traces for the specs of '{bench}' under '{traces}'; run collect-traces first")
    return fit_predictor(specs, runs, steps=steps, seed=seed, lm_steps=lm_steps)
