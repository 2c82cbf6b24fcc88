"""The GNN clause scorer (spec §2.3, model 1): message passing over a spec's AST in plain torch,
literal embeddings, and a head scoring every clause of one or two literals with polarities: "is
this a tautology the spec's refinement will need?"

Graph: one node per temporal/Boolean operator, per literal, per arithmetic term inside a literal
(operators, variables with owner, constants as sign + log-magnitude + rank among the spec's
constants); edges parent<->child plus "same variable". Sizes are chosen for the CPU [inf].
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import torch
from torch import nn

from proceedings.neurosyntheos.ltl import Formula
from proceedings.neurosyntheos.spec import Spec

KINDS = ["G", "F", "X", "U", "R", "W", "!", "&", "|", "->", "<->", "true", "false", "literal",
         "==", "distinct", "<=", ">=", "<", ">", "+", "-", "*", "var_system", "var_environment",
         "fetch", "const", "not", "and", "or", "other"]
FEATURES = len(KINDS) + 4  # kind one-hot, sign, log-magnitude, constant rank, output literal


@dataclass
class Graph:
    features: list[list[float]]
    edges: list[tuple[int, int]]
    literal_nodes: dict[str, int]  # proposition -> node


def spec_graph(spec: Spec) -> Graph:
    import z3
    feats: list[list[float]] = []
    edges: list[tuple[int, int]] = []
    literal_nodes: dict[str, int] = {}
    var_nodes: dict[str, int] = {}
    constants = sorted(set(spec.constants())) or [0]

    def node(kind: str, value: float | None = None, output: bool = False) -> int:
        row = [0.0] * FEATURES
        row[KINDS.index(kind) if kind in KINDS else KINDS.index("other")] = 1.0
        if value is not None:
            row[len(KINDS)] = math.copysign(1.0, value)
            row[len(KINDS) + 1] = math.log1p(abs(value))
            row[len(KINDS) + 2] = sum(c <= value for c in constants) / len(constants)
        row[len(KINDS) + 3] = float(output)
        feats.append(row)
        return len(feats) - 1

    def term(e) -> int:
        if z3.is_int_value(e) or z3.is_rational_value(e):
            return node("const", float(e.as_long()) if z3.is_int_value(e) else float(e.as_fraction()))
        if z3.is_const(e):
            name = e.decl().name()
            if name in var_nodes:
                return var_nodes[name]
            if name.startswith("y_"):
                var_nodes[name] = node("fetch")
            else:
                var_nodes[name] = node(f"var_{spec.variables[name].owner}")
            return var_nodes[name]
        kind = {z3.Z3_OP_EQ: "==", z3.Z3_OP_DISTINCT: "distinct", z3.Z3_OP_LE: "<=", z3.Z3_OP_GE: ">=",
                z3.Z3_OP_LT: "<", z3.Z3_OP_GT: ">", z3.Z3_OP_ADD: "+", z3.Z3_OP_SUB: "-", z3.Z3_OP_MUL: "*",
                z3.Z3_OP_NOT: "not", z3.Z3_OP_AND: "and", z3.Z3_OP_OR: "or"}.get(e.decl().kind(), "other")
        me = node(kind)
        for child in e.children():
            c = term(child)
            edges.extend([(me, c), (c, me)])
        return me

    def formula(f: Formula) -> int:
        if f.op == "ap":
            if f.name not in literal_nodes:
                lit = next(lit for lit in spec.literals if lit.prop == f.name)
                literal_nodes[f.name] = node("literal", output=lit.output)
                body = term(lit.expr)
                edges.extend([(literal_nodes[f.name], body), (body, literal_nodes[f.name])])
            return literal_nodes[f.name]
        me = node(f.op)
        for a in f.args:
            c = formula(a)
            edges.extend([(me, c), (c, me)])
        return me

    formula(spec.formula)
    return Graph(feats, edges, literal_nodes)


def candidate_clauses(spec: Spec) -> list[tuple[tuple[str, bool], ...]]:
    """Every clause over one or two of the spec's literals, with polarities (props, sorted)."""
    props = [lit.prop for lit in spec.literals]
    out = [((p, pol),) for p in props for pol in (False, True)]
    for a, b in itertools.combinations(props, 2):
        out += [((a, pa), (b, pb)) for pa in (False, True) for pb in (False, True)]
    return out


class ClauseGNN(nn.Module):
    """h_v <- relu(W_self h_v + W_nb mean_{u~v} h_u), `layers` times; clause logit from the literal
    embeddings and polarities (a 1-literal clause pairs a literal with itself)."""

    def __init__(self, hidden: int = 64, layers: int = 3):
        super().__init__()
        self.embed = nn.Linear(FEATURES, hidden)
        self.self_w = nn.ModuleList(nn.Linear(hidden, hidden) for _ in range(layers))
        self.nb_w = nn.ModuleList(nn.Linear(hidden, hidden, bias=False) for _ in range(layers))
        self.head = nn.Sequential(nn.Linear(4 * hidden + 3, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, x, edge_index, pairs, polarities, single):
        h = torch.relu(self.embed(x))  # (nodes, hidden)
        src, dst = edge_index
        degree = torch.zeros(x.shape[0]).index_add_(0, dst, torch.ones(dst.shape[0])).clamp(min=1)
        for w_self, w_nb in zip(self.self_w, self.nb_w):
            messages = torch.zeros_like(h).index_add_(0, dst, h[src]) / degree[:, None]
            h = torch.relu(w_self(h) + w_nb(messages))
        a, b = h[pairs[:, 0]], h[pairs[:, 1]]  # (clauses, hidden)
        both = torch.cat([a + b, a * b, (a - b).abs(), a.max(b), polarities, single[:, None]], dim=1)
        return self.head(both).squeeze(1)  # (clauses,)


def build_model(hidden: int = 64, layers: int = 3) -> ClauseGNN:
    return ClauseGNN(hidden, layers)


def tensors(spec: Spec, clauses):
    g = spec_graph(spec)
    x = torch.tensor(g.features, dtype=torch.float32)
    edge_index = torch.tensor(g.edges, dtype=torch.long).T if g.edges else torch.zeros(2, 0, dtype=torch.long)
    pairs = torch.tensor([[g.literal_nodes[c[0][0]], g.literal_nodes[c[-1][0]]] for c in clauses])
    polarities = torch.tensor([[float(c[0][1]), float(c[-1][1])] for c in clauses])
    single = torch.tensor([float(len(c) == 1) for c in clauses])
    return x, edge_index, pairs, polarities, single


class ClauseScorer:
    """The trained GNN with the spec -> ranked candidate clauses interface the predictor uses."""

    def __init__(self, model):
        self.model = model

    def scores(self, spec: Spec, clauses) -> list[float]:
        with torch.no_grad():
            return self.model(*tensors(spec, clauses)).tolist()

    def rank(self, spec: Spec) -> list[tuple[tuple[str, bool], ...]]:
        """Candidate clauses as (SMT-LIB text, polarity) tuples, best first."""
        import z3
        clauses = candidate_clauses(spec)
        table = {lit.prop: z3.simplify(lit.expr).sexpr() for lit in spec.literals}
        order = sorted(zip(self.scores(spec, clauses), range(len(clauses))), reverse=True)
        return [tuple((table[p], pol) for p, pol in clauses[k]) for _, k in order]


def train(examples: list[tuple[Spec, set]], steps: int = 200, seed: int = 0, lr: float = 3e-3):
    """BCE of every candidate clause against membership in the spec's final tautology set
    (`examples`: spec and its final clauses as frozensets of (prop, polarity)). Returns the scorer
    and the loss curve."""
    torch.manual_seed(seed)
    model = build_model()
    optimiser = torch.optim.Adam(model.parameters(), lr=lr)
    batches = []
    for spec, final in examples:
        clauses = candidate_clauses(spec)
        labels = torch.tensor([float(frozenset(c) in final) for c in clauses])
        batches.append((tensors(spec, clauses), labels))
    losses = []
    positives = sum(float(lab.sum()) for _, lab in batches)
    total = sum(len(lab) for _, lab in batches)
    weight = torch.tensor(max(1.0, (total - positives) / max(positives, 1.0)))
    for step in range(steps):
        inputs, labels = batches[step % len(batches)]
        loss = torch.nn.functional.binary_cross_entropy_with_logits(model(*inputs), labels, pos_weight=weight)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        losses.append(float(loss.detach()))
    return ClauseScorer(model.eval()), losses
