"""The data builder (spec §4.1): real PDB complexes and CCD ligands -> docking-language samples.

1. scaffolds: the biopython 1.88 Tests/PDB complexes, cropped to 12 Å shells; pockets = residues
   within 5 Å of the native ligand; a ligand-free scaffold is docked into its largest LIGSITE cavity
   (`cavity.py`) and gives no native sample;
2. ligands: a seeded draw of drug-like CCD components, clustered by Morgan fingerprint;
3. poses: Vina docking (exhaustiveness 4) of each ligand into each pocket; the top pose is kept when
   it scores below the threshold;
4. targets: the native pocket for native ligands; for docked ligands the Vina-best of a few
   LigandMPNN designs after packing (pseudo-labels, marked `distilled`);
5. the profiler's records of the target complex -> docking text (full and masked), plus function
   text and ligand description.
The build goes ligand by ligand (dock into each pocket, distil each kept pose), and every docking and
every distilled pose is cached under `cache/` by a hash of its inputs (atomic writes) as soon as it is made,
so an interrupted build loses at most the one sample in progress, resumes, and reports its cache hits; the
time of each stage is reported apart, and the run's CPU seconds (LigandMPNN's subprocesses included). Past a
deadline the build starts no docking, and writes the samples of the ligands it finished: the same build as one
asking for that many ligands.
"""

from __future__ import annotations

import hashlib
import json
import logging
import multiprocessing
import random
import resource
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from proceedings.core.errors import ProceedingsError
from proceedings.core.progress import progress_bar
from proceedings.core.runtime import atomic_write_text, stopwatch
from proceedings.core.staging import past_deadline
from proceedings.dockwizard.assets import pdb_folder
from proceedings.dockwizard.cavity import cavity_complex
from proceedings.dockwizard.data import Sample, save_samples
from proceedings.dockwizard.docking import ligand_pdbqt, receptor_pdbqt, vina_scores
from proceedings.dockwizard.docking_text import docking_text
from proceedings.dockwizard.interactions import profile
from proceedings.dockwizard.ligands import (ccd_molecule, is_drug_like, ligand_description, ligand_info,
                                            morgan_clusters, posed_molecule, template_order_xyz)
from proceedings.dockwizard.seeds import tool_seed
from proceedings.dockwizard.structures import Complex, Ligand, read_complex, write_pdb

log = logging.getLogger(__name__)

# (file, ligand code, copy, function text): SwissProt-style summaries of what each protein does. 1GBT is left
# out: its GBS is a covalent acyl-enzyme remnant that lacks atoms of the CCD component.
NATIVE_COMPLEXES = (
    ("6WQA.cif", "ZMA", 0, "Adenosine receptor A2a, a G-protein coupled receptor for adenosine; antagonists and "
                           "agonists bind an orthosteric pocket between its transmembrane helices."),
    ("4CUP.cif", "ZYB", 0, "Bromodomain of BAZ2B, a chromatin regulator whose bromodomain reads acetylated lysine "
                           "residues on histone tails in a hydrophobic pocket."),
    ("7CFN.cif", "FX0", 0, "A membrane transporter that binds small hydrophobic drugs in a central cavity of its "
                           "transmembrane domain."),
)
# (file, None, 0, function text): ligand-free scaffolds, asked for by name (`--scaffolds 4ZHL`); 4ZHL's bound
# peptide (chain P, 12 residues) is taken out, so its S1 pocket is free.
LIGAND_FREE = (
    ("1A8O.cif", None, 0, "C-terminal domain of the HIV-1 capsid protein, which forms the dimer interface of the "
                          "viral capsid lattice."),
    ("2OFG.cif", None, 0, "N-terminal metal-binding domain of ZiaA, a zinc(II)-transporting P-type ATPase (apo form)."),
    ("4ZHL.cif", None, 0, "Urokinase-type plasminogen activator, a trypsin-like serine protease whose S1 pocket binds "
                          "the arginine and lysine side chains of substrates and inhibitors."),
)
DOCK_EXHAUSTIVENESS = 4  # spec §4.1 step 3
DOCK_THRESHOLD = -6.0  # kcal/mol: keep a docked pose only below this (spec §4.1 step 3)
# cached docked poses: 2 = coordinates in the CCD's atom order (format 1, before 2026-12-02 21:00 UTC, kept meeko's
# SMILES order under the CCD's names: every docked pose's atoms were scrambled; `renamed_pose` mends them)
POSE_FORMAT = 2
DOCK_CPU_S = 300  # CPU seconds a docking may take (spec §7: Vina per pose 300 s); past it, counted as not docked


def native_complexes(ids: list[str]) -> tuple:
    """The NATIVE_COMPLEXES and LIGAND_FREE scaffolds whose PDB ids are named (all NATIVE_COMPLEXES for none);
    an unknown id is a one-line error."""
    known = {entry[0].split(".")[0]: entry for entry in NATIVE_COMPLEXES + LIGAND_FREE}
    wanted = [i.strip().upper() for i in ids]
    unknown = [i for i in wanted if i not in known]
    if unknown:
        raise ProceedingsError(f"unknown scaffold(s) {', '.join(unknown)} (field 'scaffolds'); choose from "
                               f"{', '.join(known)}")
    return tuple(known[i] for i in wanted) if wanted else NATIVE_COMPLEXES


@dataclass
class BuildConfig:
    ligands: int = 12  # drawn drug-like CCD ligands
    candidates: int = 400  # CCD codes drawn to find them
    designs_per_target: int = 2  # LigandMPNN designs packed and scored for a docked ligand's target
    seed: int = 0
    complexes: tuple = NATIVE_COMPLEXES
    threshold: float = DOCK_THRESHOLD


@dataclass
class BuildReport:
    samples: int = 0
    ligands: int = 0  # ligands finished (all asked for, unless a time limit stopped the build)
    cache_hits: int = 0
    computed: dict = field(default_factory=dict)  # items made by this run, per kind (dock, distil, native)
    over_cpu_limit: list = field(default_factory=list)  # dockings stopped at DOCK_CPU_S ("ligand->scaffold")
    seconds: dict = field(default_factory=dict)  # wall seconds per stage
    wall_s: float = 0.0
    cpu_s: float = 0.0  # this process and its finished children (LigandMPNN)


class ItemCache:
    """One JSON file per item, keyed by a hash of the item's inputs."""

    def __init__(self, root: Path, report: BuildReport):
        self.root, self.report = root / "cache", report
        self.root.mkdir(parents=True, exist_ok=True)

    def path(self, kind: str, inputs: dict) -> Path:
        key = hashlib.sha256(json.dumps([kind, inputs], sort_keys=True, default=str).encode()).hexdigest()[:20]
        return self.root / f"{kind}-{key}.json"

    def has(self, kind: str, inputs: dict) -> bool:
        return self.path(kind, inputs).exists()

    def get_or_make(self, kind: str, inputs: dict, make):
        path = self.path(kind, inputs)
        if path.exists():
            self.report.cache_hits += 1
            return json.loads(path.read_text())
        value = make()
        atomic_write_text(path, json.dumps(value, default=_plain))
        self.report.computed[kind] = self.report.computed.get(kind, 0) + 1
        return value


def _plain(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    raise TypeError(type(value))


def _timed(report: BuildReport, stage: str):
    class Timer:
        def __enter__(self):
            self.start = time.perf_counter()

        def __exit__(self, *exc):
            report.seconds[stage] = round(report.seconds.get(stage, 0.0) + time.perf_counter() - self.start, 2)
    return Timer()


def function_text(text: str) -> str:
    return f"{text} Design the ligand-binding pocket."


def build(out: Path | str, config: BuildConfig, judge, deadline: float | None = None) -> BuildReport:
    """Build samples into `out` (samples.jsonl + scaffolds/*.pdb); resumable. Past `deadline` (time.time()):
    start no docking, and write the samples of the finished ligands."""
    report = BuildReport()
    with stopwatch() as spent:
        _build(Path(out), config, judge, deadline, report)
    report.wall_s, report.cpu_s = round(spent.wall_s, 2), round(spent.cpu_s, 2)
    atomic_write_text(Path(out) / "build_report.json", json.dumps(asdict(report), indent=1))
    return report


def _build(out: Path, config: BuildConfig, judge, deadline: float | None, report: BuildReport) -> None:
    (out / "scaffolds").mkdir(parents=True, exist_ok=True)
    cache = ItemCache(out, report)
    with _timed(report, "scaffolds"):
        natives = [_native(out, file, code, copy, text) for file, code, copy, text in config.complexes]
    samples = [_native_sample(cache, c, text) for c, text in natives if c.ligand.code]  # cluster -1: never held out
    with _timed(report, "ligands"):
        ligands = druglike_ligands(config.ligands, config.candidates, config.seed)
    made = grow(cache, natives, ligands, judge, config, deadline)
    done = ligands[: len(made)]
    clusters = dict(zip(done, morgan_clusters([ccd_molecule(c) for c in done]))) if done else {}
    for pocket in range(len(natives)):  # pocket-major order, as before the build went ligand by ligand
        for kept in (per_pocket[pocket] for per_pocket in made):
            if kept is not None and kept[2] is not None:
                c, text, target = kept
                samples.append(_sample(c, text, target, clusters[c.ligand.code], distilled=True))
    save_samples(samples, out)
    report.samples, report.ligands = len(samples), len(done)


def grow(cache: ItemCache, natives: list, ligands: list[str], judge, config: BuildConfig,
         deadline: float | None = None) -> list[list]:
    """Ligand by ligand: dock into each pocket and distil each pose below the threshold, each cached as soon as
    it is made. Per finished ligand, one (docked complex, function text, target or None) per pocket, or None
    per pocket whose pose was not kept. Past `deadline` it makes nothing more: the items of the ligand in
    progress stay cached, and the ligand is left out (one docking into 6WQA can take 2 minutes under load)."""
    made, report = [], cache.report
    for code in progress_bar(ligands, desc="ligands"):
        per_pocket = []
        for c, text in natives:
            if past_deadline(deadline):
                return made
            with _timed(report, "dock"):
                pose = cache.get_or_make("dock", {"scaffold": c.name, "ligand": code, "seed": config.seed,
                                                  "format": POSE_FORMAT},
                                         lambda: _docked_or_renamed(cache, c, code, config.seed))
            if pose is None or pose["energy"] > config.threshold:
                per_pocket.append(None)
                continue
            docked = Complex(c.name, c.residues, Ligand(code, pose["names"], pose["elements"], np.array(pose["xyz"])))
            with _timed(report, "distil"):
                per_pocket.append((docked, text, distilled(cache, docked, judge, config)))
        made.append(per_pocket)
    return made


def _docked_or_renamed(cache: ItemCache, c: Complex, code: str, seed: int) -> dict | None:
    """A new docking, or the format-1 cached one renamed (the same seeded docking: same energy and coordinates)."""
    format1 = cache.path("dock", {"scaffold": c.name, "ligand": code, "seed": seed})
    if format1.exists():
        old = json.loads(format1.read_text())
        return renamed_pose(old, code) if old is not None else None
    return dock(c, code, seed, cache.report)


def _native(out: Path, file: str, code: str | None, copy: int, text: str) -> tuple[Complex, str]:
    full = read_complex(pdb_folder() / file, code, copy)
    shell = (full if code else cavity_complex(full)).shell()
    write_pdb(out / "scaffolds" / f"{shell.name}.pdb", shell.residues)
    return shell, text


def _native_sample(cache: ItemCache, c: Complex, text: str) -> Sample:
    def make():
        mol = posed_molecule(c.ligand)
        return {"sequence": c.sequence(c.pocket()), "vina": vina_scores(c.residues, mol).optimized,
                "interactions": [i.as_dict() for i in profile(c, mol)]}
    target = cache.get_or_make("native", {"scaffold": c.name, "xyz": c.ligand.xyz.round(3).tolist()}, make)
    return _sample(c, text, target, -1, distilled=False)


def _sample(c: Complex, text: str, target: dict, cluster: int, distilled: bool) -> Sample:
    from proceedings.dockwizard.interactions import Interaction

    pocket = c.pocket()
    interactions = [Interaction(**i) for i in target["interactions"]]
    info = ligand_info(c.ligand.code)
    return Sample(id=f"{c.name.split('_')[0]}-{c.ligand.code}", scaffold=c.name, ligand_code=c.ligand.code,
                  cluster=cluster, pocket=pocket, target=target["sequence"], native=c.sequence(pocket),
                  distilled=distilled, function_text=function_text(text),
                  docking_full=docking_text(interactions, len(pocket)),
                  docking_masked=docking_text(interactions, len(pocket), masked=True),
                  ligand_description=ligand_description(c.ligand.code), smiles=info.smiles,
                  interactions=[i.as_dict() for i in interactions],
                  pose={"names": c.ligand.names, "elements": c.ligand.elements,
                        "xyz": np.round(c.ligand.xyz, 3).tolist()}, vina=target["vina"])


def druglike_ligands(n: int, candidates: int, seed: int) -> list[str]:
    """A seeded draw of `n` drug-like CCD components (spec §4.1 step 2)."""
    import biotite.structure.info as info

    codes = sorted(info.all_residues())
    rng = random.Random(seed)
    chosen: list[str] = []
    if n <= 0:
        return chosen
    for code in rng.sample(codes, min(candidates, len(codes))):
        try:
            if is_drug_like(ccd_molecule(code)):
                chosen.append(code)
        except ProceedingsError:
            continue
        if len(chosen) == n:
            break
    return chosen


def dock(c: Complex, code: str, seed: int, report: BuildReport | None = None) -> dict | None:
    """`vina_dock` in a child process held to DOCK_CPU_S CPU seconds (CPU, not wall: the same under any load);
    None, cached like a failed embedding, when it runs past them."""
    finished, value = cpu_capped(vina_dock, (c, code, seed), DOCK_CPU_S)
    if not finished:
        log.warning("docking %s into %s passed %d CPU-s: counted as not docked", code, c.name, DOCK_CPU_S)
        if report is not None:
            report.over_cpu_limit.append(f"{code}->{c.name}")
    return value


def cpu_capped(fn, args: tuple, cpu_s: int):
    """(True, fn(*args)) from a forked child limited to `cpu_s` CPU seconds, (False, None) if the limit killed it;
    the child's exceptions are raised here. A shell limit below `cpu_s` is refused: what it stopped would be counted
    (and cached) as past `cpu_s`."""
    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    if hard != resource.RLIM_INFINITY and hard < cpu_s:
        raise ProceedingsError(f"this shell limits a process to {hard} CPU-s (`ulimit -t`), below the {cpu_s} CPU-s a "
                               "docking may take; raise the limit")
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_run_capped, args=(send, fn, args, cpu_s))
    child.start()
    send.close()
    try:
        ok, value = receive.recv()
    except EOFError:  # SIGXCPU (or SIGKILL) ended the child before it answered
        return False, None
    finally:
        child.join()
    if not ok:
        raise value
    return True, value


def _run_capped(send, fn, args: tuple, cpu_s: int) -> None:
    try:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # SIGXCPU would dump core
        hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, hard))  # a forked child's CPU time starts at 0
        send.send((True, fn(*args)))
    except Exception as err:  # noqa: BLE001 - handed to the parent, which raises it
        send.send((False, err))


def vina_dock(c: Complex, code: str, seed: int) -> dict | None:
    """Vina docking of a CCD ligand into the pocket (box around the native ligand), seeded; the top pose."""
    import tempfile

    from proceedings.dockwizard.docking import box_for, vina_class

    ligand = dock_input(code)
    if ligand is None:
        return None
    Vina = vina_class()
    with tempfile.TemporaryDirectory() as tmp:
        receptor = Path(tmp) / "r.pdbqt"
        receptor.write_text(receptor_pdbqt(c.residues))
        v = Vina(sf_name="vina", cpu=1, seed=tool_seed(seed), verbosity=0)
        v.set_receptor(rigid_pdbqt_filename=str(receptor))
        v.set_ligand_from_string(ligand)
        centre, size = box_for(c.ligand.xyz)
        v.compute_vina_maps(center=centre, box_size=size)
        v.dock(exhaustiveness=DOCK_EXHAUSTIVENESS, n_poses=1)
        energy = float(v.energies(n_poses=1)[0][0])
        posed = meeko_molecule(v.poses(n_poses=1))
    return {"energy": energy, **named_pose(posed, code)}


def dock_input(code: str) -> str | None:
    """The ligand PDBQT a docking starts from: the CCD molecule embedded with a fixed seed (None when RDKit
    cannot embed it)."""
    from rdkit import Chem
    from rdkit.Chem import AllChem

    mol = Chem.AddHs(ccd_molecule(code))
    if AllChem.EmbedMolecule(mol, randomSeed=0) != 0:
        return None
    return ligand_pdbqt(Chem.RemoveHs(mol))


def meeko_molecule(pdbqt: str):
    """The RDKit molecule meeko rebuilds from a PDBQT pose: heavy atoms in the order of the SMILES in its
    REMARK (which depends on the molecule only), not in the CCD's order."""
    from meeko import PDBQTMolecule, RDKitMolCreate
    from rdkit import Chem

    return Chem.RemoveHs(RDKitMolCreate.from_pdbqt_mol(PDBQTMolecule(pdbqt, skip_typing=True))[0])


def named_pose(posed, code: str) -> dict:
    """A posed molecule of CCD ligand `code` as names, elements and coordinates in the CCD's atom order."""
    template = ccd_molecule(code)
    return {"names": [a.GetProp("name") for a in template.GetAtoms()],
            "elements": [a.GetSymbol().upper() for a in template.GetAtoms()],
            "xyz": template_order_xyz(posed, template).round(3).tolist()}


def renamed_pose(old: dict, code: str) -> dict:
    """A docked pose cached in format 1 (meeko's atom order under the CCD's names) put in the CCD's order
    without docking again: meeko's order is that of the docking's input PDBQT."""
    from rdkit.Geometry import Point3D

    posed = meeko_molecule(dock_input(code))
    conformer = posed.GetConformer()
    for i, xyz in enumerate(old["xyz"]):
        conformer.SetAtomPosition(i, Point3D(*map(float, xyz)))
    return {"energy": old["energy"], **named_pose(posed, code)}


def distilled(cache: ItemCache, docked: Complex, judge, config: BuildConfig) -> dict | None:
    """The Vina-best of `designs_per_target` packed LigandMPNN designs of one docked pose (one subprocess:
    ~4 CPU-s of start-up bought for losing at most this pose when interrupted), cached."""
    key = {"scaffold": docked.name, "ligand": docked.ligand.code, "pose": docked.ligand.xyz.round(3).tolist(),
           "n": config.designs_per_target, "seed": config.seed}
    return cache.get_or_make("distil", key, lambda: best_design(
        docked, judge.design([(docked, docked.pocket())], config.designs_per_target)[0]))


def best_design(docked: Complex, designs: list) -> dict | None:
    pocket, mol = docked.pocket(), posed_molecule(docked.ligand)
    best = None
    for seq, packed in designs:
        if packed is None:
            continue
        residues = {r.key: r for r in packed}
        complex_ = Complex(docked.name, [residues.get(r.key, r) for r in docked.residues], docked.ligand)
        energy = vina_scores(complex_.residues, mol).optimized
        if best is None or energy < best["vina"]:
            best = {"sequence": seq, "vina": energy, "interactions": [i.as_dict() for i in profile(complex_, mol, pocket)]}
    return best
