"""Speed benchmark (issue 23 "Speed"): CPU seconds per bounded-synthesis SMT call by propositions,
automaton states and bound; z3 validity checks per second; GNN and tautology-model inference and training time per step;
peak RSS. CPU seconds, because wall time on a shared machine measures the neighbours."""

from __future__ import annotations

import itertools
import os
import resource
import time

from proceedings.neurosyntheos.automaton import translate
from proceedings.neurosyntheos.bounded import _solve_mealy, degeneralise
from proceedings.neurosyntheos.cegres import State
from proceedings.neurosyntheos.families import robot_target, thermostat, visits
from proceedings.neurosyntheos.ltl import neg
from proceedings.neurosyntheos.theory import check_valid, clause_formula


def _cpu(fn):
    start = time.process_time()
    out = fn()
    return out, time.process_time() - start


def synthesis_calls(bounds=(1, 2, 3)) -> list[dict]:
    rows = []
    for spec in (visits((1, 3), 0, 4), visits((1, 3, 5), 0, 6), thermostat(3, 2, 3, 0), robot_target(3, 3)):
        game = State(spec, list(spec.literals)).game()
        aut = translate(neg(game.formula))
        deg = degeneralise(aut)
        for n in bounds:
            (result, _), seconds = _cpu(lambda: _solve_mealy(game, n, deg, 600_000))
            rows.append({"spec": spec.name, "inputs": len(game.inputs), "outputs": len(game.outputs),
                         "automaton_states": aut.n_states, "degeneralised_states": len(deg[0]), "bound": n,
                         "result": str(result), "cpu_s": round(seconds, 3)})
    return rows


def validity_rate() -> dict:
    spec = visits((1, 3, 5, 7), 0, 8)
    table = {lit.prop: lit for lit in spec.literals}
    clauses = [frozenset({(a, pa), (b, pb)}) for a, b in itertools.combinations(table, 2)
               for pa in (False, True) for pb in (False, True)]
    verdicts, seconds = _cpu(lambda: [check_valid(clause_formula(c, table)).valid for c in clauses])
    return {"checks": len(clauses), "valid": sum(v is True for v in verdicts), "per_s": round(len(clauses) / seconds, 1)}


def gnn_times(steps: int = 20) -> dict:
    from proceedings.neurosyntheos.gnn import ClauseScorer, build_model, train
    spec = visits((1, 3, 5, 7), 0, 8)
    scorer = ClauseScorer(build_model().eval())
    scorer.rank(spec)  # warm
    _, infer = _cpu(lambda: [scorer.rank(spec) for _ in range(10)])
    final = {frozenset({("l2", False), ("l3", False)})}
    _, trained = _cpu(lambda: train([(spec, final)], steps=steps))
    return {"inference_ms_per_step": round(1000 * infer / 10, 2), "train_ms_per_step": round(1000 * trained / steps, 2),
            "parameters": sum(p.numel() for p in scorer.model.parameters())}


def lm_times(steps: int = 20) -> dict:
    """The autoregressive tautology model: training ms per step on a patrol's exclusions, sampling ms per
    spec (32 samples)."""
    from proceedings.neurosyntheos.tautology_lm import sample, train
    spec = visits((1, 3, 5, 7), 0, 8)
    clauses = [((f"(= {a} x)", False), (f"(= {b} x)", False)) for a, b in ((1, 3), (1, 5), (3, 5), (5, 7))]
    (model, _), trained = _cpu(lambda: train([(spec, c) for c in clauses], steps=steps))
    _, infer = _cpu(lambda: [sample(model, spec) for _ in range(3)])
    return {"sample_ms_per_spec": round(1000 * infer / 3, 1), "train_ms_per_step": round(1000 * trained / steps, 2),
            "parameters": sum(p.numel() for p in model.parameters())}


def speed_report() -> dict:
    report = {"synthesis_calls": synthesis_calls(), "z3_validity": validity_rate(), "gnn": gnn_times(),
              "lm": lm_times()}
    report["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    report["load_average"] = os.getloadavg()[0]
    return report


def markdown(report: dict) -> str:
    lines = ["| spec | inputs | outputs | automaton states (degeneralised) | bound | result | CPU s |",
             "|---|---|---|---|---|---|---|"]
    for r in report["synthesis_calls"]:
        lines.append(f"| {r['spec']} | {r['inputs']} | {r['outputs']} | {r['automaton_states']} "
                     f"({r['degeneralised_states']}) | {r['bound']} | {r['result']} | {r['cpu_s']} |")
    z, g = report["z3_validity"], report["gnn"]
    lines += ["", f"z3 validity checks: {z['per_s']}/s CPU ({z['checks']} two-literal clauses, {z['valid']} valid); "
              f"GNN ({g['parameters']} parameters): inference {g['inference_ms_per_step']} ms per ranking, training "
              f"{g['train_ms_per_step']} ms per step; tautology model ({report['lm']['parameters']} parameters): "
              f"{report['lm']['sample_ms_per_spec']} ms per spec (32 samples), training "
              f"{report['lm']['train_ms_per_step']} ms per step; peak RSS {report['peak_rss_mib']} MiB; "
              f"load average {report['load_average']:.1f}."]
    return "\n".join(lines)
