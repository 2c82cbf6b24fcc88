"""The four-stage evaluation (spec §2.4); every design gets a row, failures recorded, never dropped.

1. sequence: validity (canonical letters, the pocket's length), recovery of the target and native
   pocket, diversity (mean pairwise identity of a condition's designs);
2. structure: the LigandMPNN side-chain packer, one pack per design, on the scaffold's shell with
   the conditioning ligand pose (its LigandMPNN log-likelihood is recorded beside it);
3. docking: Vina energy of the conditioning pose after local optimisation in the packed receptor;
   for the (condition, arm) pairs asked for, also redocking at exhaustiveness 8 (secondary: it missed
   native poses by 7-9 Å on openbabel receptors, and costs ~10-70 CPU-s a design);
4. complex: each stated interaction re-detected by the profiler (over those the pocket's backbone
   does not already make: a glycine pocket's backbone H-bonds are kept by every design), audited one by
   one (which were lost, and per kind how many were kept: LigandMPNN users report lost H-bonds), protein-ligand
   clashes < 2.2 Å in the conditioning pose (and, reported beside, in the locally optimised one),
   ligand drift under local optimisation.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from proceedings.core.progress import progress_bar
from proceedings.core.runtime import atomic_write_text, stopwatch
from proceedings.dockwizard.data import Sample
from proceedings.dockwizard.docking import clashes, vina_scores
from proceedings.dockwizard.interactions import Interaction, backbone_made, profile, satisfied
from proceedings.dockwizard.ligands import posed_molecule
from proceedings.dockwizard.provenance import source_digest
from proceedings.dockwizard.structures import AMINO_ACIDS

STAGES = ("sequence", "structure", "docking", "complex")
# A percentile bootstrap over n paired conditions: at n = 2 its 90 % interval is [min, max] of the two
# differences, so it "excludes 0" whenever both share a sign (half the time with no effect at all);
# below 5 conditions no interval is reported and no claim that needs one can pass.
MIN_PAIRED_CONDITIONS = 5
# Reported beside the Vina metric, never used by it (the issue defines the metric): a ligand that "local"
# optimisation moved further than this (heavy-atom RMSD; the spec's 2 Å redocking-success radius) has left
# its conditioning pose, and its Vina energy scores another pose. Also the radius of a redocking success.
DRIFT_LIMIT = 2.0
REDOCK_EXHAUSTIVENESS = 8  # issue: redocking at exhaustiveness 8, secondary
EVAL_CHUNK = 3  # conditions judged per LigandMPNN subprocess (and per checkpoint) in a resumable run


@dataclass
class DesignRow:
    condition: str
    arm: str
    index: int
    sequence: str
    valid: bool
    recovery: float | None = None  # identity to the target pocket
    native_recovery: float | None = None
    log_likelihood: float | None = None  # LigandMPNN mean log-probability of the packed sequence
    packed: bool = False
    vina_score: float | None = None
    vina: float | None = None  # after local optimisation (primary docking metric)
    redock: float | None = None  # best redocked energy at exhaustiveness 8 (secondary; only where asked for)
    redock_rmsd: float | None = None  # its top pose's heavy-atom RMSD to the conditioning pose, Å
    drift: float | None = None
    satisfied: float | None = None  # fraction re-detected of the stated interactions the backbone alone does not make
    satisfied_all: float | None = None  # fraction re-detected of all stated interactions (reported beside it)
    lost: list[str] = field(default_factory=list)  # the audit: stated interactions (of `satisfied`) not re-detected
    kept_by_kind: dict[str, list[int]] = field(default_factory=dict)  # kind -> [re-detected, stated] (of `satisfied`)
    clashes: int | None = None  # in the conditioning pose (the packed complex the design is judged on)
    clashes_optimized: int | None = None  # after Vina's local optimisation moved the ligand (reported beside)
    error: str = ""
    extra: dict = field(default_factory=dict)


def valid_pocket(sequence: str, length: int) -> bool:
    return len(sequence) == length and set(sequence) <= set(AMINO_ACIDS)


def identity(a: str, b: str) -> float:
    return sum(x == y for x, y in zip(a, b)) / max(len(b), 1)


def diversity(sequences: list[str]) -> float | None:
    """1 - mean pairwise identity (None for fewer than two designs)."""
    pairs = list(itertools.combinations(sequences, 2))
    return 1.0 - float(np.mean([identity(a, b) for a, b in pairs])) if pairs else None


def sequence_stage(condition: Sample, arm: str, designs: list[str]) -> list[DesignRow]:
    rows = []
    for i, seq in enumerate(designs):
        ok = valid_pocket(seq, len(condition.pocket))
        row = DesignRow(condition.id, arm, i, seq, ok)
        if ok:
            row.recovery, row.native_recovery = identity(seq, condition.target), identity(seq, condition.native)
        else:
            row.error = f"invalid pocket: length {len(seq)} for {len(condition.pocket)} slots or non-canonical letters"
        rows.append(row)
    return rows


def evaluate(designs: dict[str, dict[str, list[str]]], conditions: list[Sample], root: Path, judge,
             stages: tuple[str, ...] = STAGES, work: Path | None = None, checkpoint: Path | None = None,
             spent: dict | None = None, redock: frozenset[tuple[str, str]] = frozenset()) -> list[DesignRow]:
    """Rows for every design: `designs[arm][condition id]` -> pocket sequences; `judge` packs (LigandMPNN);
    the designs of the (condition id, arm) pairs in `redock` are also redocked.
    With a `checkpoint` folder the designs are judged EVAL_CHUNK conditions at a time and each chunk's rows
    are kept there per arm, so a run cut short resumes with the chunks it had not judged, and a run with
    more arms judges only theirs (a pack depends on its design alone: `ligandmpnn_calls.py`). `spent`
    receives the wall and CPU seconds of the judging (summed over the pieces of a resumed run; a chunk's
    seconds are shared among its arms by their number of designs)."""
    by_id = {c.id: c for c in conditions}
    rows = [row for arm, per in designs.items() for cid, seqs in per.items()
            for row in sequence_stage(by_id[cid], arm, seqs)]
    resumable = checkpoint is not None and "structure" in stages
    chunks = ([[c.id for c in conditions[i: i + EVAL_CHUNK]] for i in range(0, len(conditions), EVAL_CHUNK)]
              if resumable else [list(by_id)])
    judged, wall, cpu = [], 0.0, 0.0
    for ids in progress_bar(chunks, desc="evaluate"):
        chunk = [r for r in rows if r.condition in ids]
        todo = []  # (path, rows) of the arms this chunk has not judged yet
        for arm in dict.fromkeys(r.arm for r in chunk):
            group = [r for r in chunk if r.arm == arm]
            path = checkpoint / f"rows-{_rows_key(group, stages, redock)}.json" if resumable else None
            if path is not None and path.exists():
                kept = json.loads(path.read_text())
                judged += [DesignRow(**r) for r in kept["rows"]]
                wall, cpu = wall + kept["seconds"][0], cpu + kept["seconds"][1]
            else:
                todo.append((path, group))
        fresh = [r for _, group in todo for r in group]
        if not fresh:
            continue
        with stopwatch() as t:
            _judge(fresh, by_id, root, judge, stages, work, redock)
        for path, group in todo:
            if path is not None:
                share = len(group) / len(fresh)
                atomic_write_text(path, json.dumps({"rows": rows_as_dicts(group),
                                                    "seconds": [t.wall_s * share, t.cpu_s * share]}))
        judged += fresh
        wall, cpu = wall + t.wall_s, cpu + t.cpu_s
    if spent is not None:
        spent.update(wall_s=wall, cpu_s=cpu)
    return judged


def _rows_key(rows: list[DesignRow], stages: tuple[str, ...], redock: frozenset[tuple[str, str]]) -> str:
    """What a chunk's judged rows depend on: its designs, the stages run (redocking included) and the code
    that judged them."""
    return hashlib.sha256(json.dumps([source_digest(), stages, [(r.condition, r.arm, r.index, r.sequence,
                                                                 (r.condition, r.arm) in redock) for r in rows]])
                          .encode()).hexdigest()[:16]


def _judge(rows: list[DesignRow], by_id: dict[str, Sample], root: Path, judge, stages, work,
           redock: frozenset[tuple[str, str]] = frozenset()) -> None:
    """Stages 2-4 on the valid rows, in place: one batched pack, then Vina and the profiler per design."""
    if "structure" not in stages:
        return
    jobs = [r for r in rows if r.valid]
    packs = judge.pack([(by_id[r.condition], r.sequence) for r in jobs], root, work)
    for row, pack in progress_bar(list(zip(jobs, packs)), desc="score designs"):
        if pack.error:
            row.error = pack.error
            continue
        row.packed, row.log_likelihood = True, pack.log_likelihood
        if {"docking", "complex"} & set(stages):
            score_complex(row, by_id[row.condition], root, pack.residues, (row.condition, row.arm) in redock)


def score_complex(row: DesignRow, condition: Sample, root: Path, packed_residues, redock: bool = False) -> None:
    """Stages 3 and 4 on one packed design (`redock`: also redock it); an exception becomes the row's error."""
    try:
        complex_ = condition.scaffold_complex(root)
        mol = posed_molecule(condition.ligand)
        stated = [Interaction(**i) for i in condition.interactions]
        made = backbone_made(stated, complex_, mol, condition.pocket)
        designable = [s for s, by_backbone in zip(stated, made) if not by_backbone]
        packed = {r.key: r for r in packed_residues}
        complex_.residues = [packed.get(r.key, r) for r in complex_.residues]
        scores = vina_scores(complex_.residues, mol, redock=redock, exhaustiveness=REDOCK_EXHAUSTIVENESS)
        row.vina_score, row.vina, row.drift = scores.score, scores.optimized, scores.drift
        row.redock, row.redock_rmsd = scores.redock, scores.redock_rmsd
        found = profile(complex_, mol, condition.pocket)
        kept = satisfied(designable, found)
        row.satisfied = float(np.mean(kept)) if designable else None
        row.lost = [f"{s.kind} at {s.residue} to the {s.ligand_group}" for s, k in zip(designable, kept) if not k]
        for s, k in zip(designable, kept):
            row.kept_by_kind.setdefault(s.kind, [0, 0])[0] += int(k)
            row.kept_by_kind[s.kind][1] += 1
        row.satisfied_all = float(np.mean(satisfied(stated, found))) if stated else None
        row.clashes = clashes(complex_.residues, condition.ligand.xyz)
        row.clashes_optimized = clashes(complex_.residues, scores.optimized_xyz)
    except Exception as err:  # one failing design never aborts the evaluation
        row.error = f"{type(err).__name__}: {err}"


def summarise(rows: list[DesignRow]) -> dict[str, float | None]:
    """Per-arm numbers: means over scored designs, plus how many failed."""
    def mean(values):
        values = [v for v in values if v is not None]
        return round(float(np.mean(values)), 4) if values else None

    scored = [r for r in rows if r.vina is not None]
    redocked = [r for r in scored if r.redock is not None]
    by_condition: dict[str, list[str]] = {}
    for r in rows:
        by_condition.setdefault(r.condition, []).append(r.sequence)
    return {"designs": len(rows), "scored": len(scored), "failed": len(rows) - len(scored),
            "validity": mean([float(r.valid) for r in rows]), "recovery": mean([r.recovery for r in rows]),
            "native_recovery": mean([r.native_recovery for r in rows]),
            "log_likelihood": mean([r.log_likelihood for r in rows]),
            "vina": mean([r.vina for r in scored]), "vina_score": mean([r.vina_score for r in scored]),
            "redocked": len(redocked), "redock": mean([r.redock for r in redocked]),
            "redock_success": mean([float(r.redock_rmsd <= DRIFT_LIMIT) for r in redocked]),
            "drift": mean([r.drift for r in scored]),
            "drifted": mean([float(r.drift > DRIFT_LIMIT) for r in scored if r.drift is not None]),
            "vina_in_pose": mean([r.vina for r in scored if r.drift is not None and r.drift <= DRIFT_LIMIT]),
            "satisfaction": mean([r.satisfied for r in scored]),
            "satisfaction_all_stated": mean([r.satisfied_all for r in scored]),
            "satisfaction_by_kind": kept_by_kind(scored),
            "clash_free": mean([float(r.clashes == 0) for r in scored]),
            "clash_free_optimized": mean([float(r.clashes_optimized == 0) for r in scored
                                          if r.clashes_optimized is not None]),
            "diversity": mean([diversity(s) for s in by_condition.values()])}


def kept_by_kind(rows: list[DesignRow]) -> dict[str, float]:
    """The interaction audit over an arm: per kind, the fraction of stated interactions re-detected (pooled)."""
    counts: dict[str, list[int]] = {}
    for r in rows:
        for kind, (kept, stated) in r.kept_by_kind.items():
            total = counts.setdefault(kind, [0, 0])
            total[0], total[1] = total[0] + kept, total[1] + stated
    return {kind: round(kept / stated, 4) for kind, (kept, stated) in sorted(counts.items())}


def per_condition(rows: list[DesignRow], key: str = "vina") -> dict[str, float]:
    """Mean of `key` over a condition's scored designs, for paired comparisons across arms."""
    out: dict[str, list[float]] = {}
    for r in rows:
        if getattr(r, key) is not None:
            out.setdefault(r.condition, []).append(getattr(r, key))
    return {c: float(np.mean(v)) for c, v in out.items()}


def paired_bootstrap_ci(a: dict[str, float], b: dict[str, float], level: float = 0.90, draws: int = 2000,
                        seed: int = 0) -> tuple[float, float] | None:
    """CI of mean(b - a) over the conditions both arms scored (resampling conditions); None for fewer
    than MIN_PAIRED_CONDITIONS."""
    shared = sorted(set(a) & set(b))
    if len(shared) < MIN_PAIRED_CONDITIONS:
        return None
    diff = np.array([b[c] - a[c] for c in shared])
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, len(diff), (draws, len(diff)))].mean(1)
    tail = (1 - level) / 2 * 100
    return float(np.percentile(means, tail)), float(np.percentile(means, 100 - tail))


def rows_as_dicts(rows: list[DesignRow]) -> list[dict]:
    return [asdict(r) for r in rows]
