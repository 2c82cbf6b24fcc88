"""`proceedings dockwizard ...`: the user's verbs.

    data-build  PDB complexes + CCD ligands -> docking-language samples (resumable, cached by input hash)
    train       one arm (DockWizard, function-only, no-router, full-text) -> config.json + model.safetensors
    generate    pocket designs for a complex, a ligand and a docking text -> FASTA
    eval        the four evaluation stages on a FASTA of designs (or the native pocket) -> CSV
    profile     the interactions of a complex and the docking text they make

The whole comparison runs as `proceedings reproduce dockwizard --scale tiny|small`. Generated sequences
are research artefacts, not validated binders.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from proceedings.core.errors import ProceedingsError
from proceedings.core.staging import deadline_after

app = typer.Typer(help="DockWizard: pocket design conditioned on docking language.", no_args_is_help=True)
console = Console()
NOTICE = "note: designed sequences are research artefacts, not validated binders"


@app.callback()
def main() -> None:
    """DockWizard's own verbs; `proceedings reproduce dockwizard --scale tiny|small` runs the comparison."""


def _condition(complex_path: Path, ligand: str, ligand_smiles: str | None):
    """A complex with its ligand as a condition: pocket, posed molecule, profiled interactions."""
    from proceedings.dockwizard.docking import pose_in_pocket
    from proceedings.dockwizard.interactions import profile
    from proceedings.dockwizard.ligands import check_pose_matches_smiles, posed_molecule
    from proceedings.dockwizard.structures import read_complex

    complex_ = read_complex(complex_path, ligand).shell()
    mol = posed_molecule(complex_.ligand)
    if ligand_smiles is not None:
        check_pose_matches_smiles(mol, ligand_smiles)
    pocket = complex_.pocket()
    if not pocket or not pose_in_pocket(complex_.ligand, [complex_.residue(k) for k in pocket]):
        raise ProceedingsError(f"the pose of {ligand} is outside any pocket of '{complex_path}' (field 'ligand')")
    return complex_, mol, pocket, profile(complex_, mol, pocket)


@app.command()
def profile(complex_path: Path = typer.Argument(..., help="PDB or mmCIF file of the complex."),
            ligand: str = typer.Option(..., help="CCD code of the ligand in the file, e.g. ZMA."),
            masked: bool = typer.Option(False, help="Withhold residue types (the masked docking text).")) -> None:
    """Print the interactions of a complex and the docking text the profiler writes for it."""
    from proceedings.dockwizard.docking_text import docking_text

    _, _, pocket, found = _condition(complex_path, ligand, None)
    for item in found:
        console.print(f"{item.kind:20s} {item.label:8s} {item.ligand_group:16s} {item.distance:.2f} Å")
    console.print(docking_text(found, len(pocket), masked=masked))


@app.command("data-build")
def data_build(out: Path = typer.Option(None, help="Build folder (default: the cache's builds/small)."),
               ligands: int = typer.Option(12, help="Drug-like CCD ligands drawn and docked into every pocket."),
               designs: int = typer.Option(2, help="LigandMPNN designs packed per docked ligand (Vina-best kept)."),
               scaffolds: str = typer.Option("", help="Comma-separated PDB ids of the complexes to use, e.g. "
                                                       "6WQA,4CUP (default: 6WQA,4CUP,7CFN); ligand-free "
                                                       "scaffolds 1A8O, 2OFG, 4ZHL are docked into their largest "
                                                       "cavity."),
               seed: int = typer.Option(0),
               max_minutes: float = typer.Option(None, help="Start no docking after this many minutes (a lane "
                                                             "piece): the finished ligands are written; rerun to go on.")
               ) -> None:
    """Build docking-language samples; rerun after an interruption and finished items are cache hits."""
    from proceedings.dockwizard.assets import cache_dir
    from proceedings.dockwizard.builder import BuildConfig, build, native_complexes
    from proceedings.dockwizard.judge import LigandMPNNJudge

    out = out or cache_dir() / "builds" / "small"
    config = BuildConfig(ligands=ligands, designs_per_target=designs, seed=seed,
                         complexes=native_complexes([s for s in scaffolds.split(",") if s.strip()]))
    deadline = deadline_after(max_minutes) if max_minutes is not None else None
    report = build(out, config, LigandMPNNJudge(seed), deadline)
    console.print(f"{report.samples} samples from {report.ligands} of {ligands} ligands in {out}; "
                  f"{report.cache_hits} cache hits, computed {report.computed}; wall seconds per stage "
                  f"{report.seconds}; {report.wall_s} s wall, {report.cpu_s} CPU-s")


@app.command()
def train(arm: str = typer.Option("dockwizard", help="dockwizard | function_only | no_router | full_text"),
          scale: str = typer.Option("tiny", help="Preset for sizes and steps (tiny|small|paper)."),
          out: Path = typer.Option(Path("dockwizard-model"), help="Output directory (config + safetensors)."),
          plm_path: Path = typer.Option(None, help="A Hugging Face protein LM's folder (e.g. ESM-2's): use it with "
                                                   "LoRA as the decoder (default: the scratch decoder; paper: "
                                                   "$PROCEEDINGS_DOCKWIZARD_PLM)."),
          seed: int = typer.Option(0)) -> None:
    """Train one arm on the preset's training split and save it."""
    from dataclasses import replace

    from proceedings.dockwizard.data import load_samples, split_by_cluster
    from proceedings.dockwizard.experiment import ARMS, CONFIGS, data_root, train_arm

    if arm not in ARMS:
        raise ProceedingsError(f"unknown arm '{arm}'; choose one of: {', '.join(ARMS)}")
    config = replace(CONFIGS[scale], seed=seed)
    if plm_path is not None:
        config = replace(config, decoder="plm", plm_path=str(plm_path))
    train_set, _ = split_by_cluster(load_samples(data_root(config)), config.held_out_clusters, seed)
    trained = train_arm(arm, train_set, config)
    trained.model.save(out)
    (out / "docking.txt").write_text(ARMS[arm][1])
    console.print(f"{arm}: loss {trained.losses[0]:.3f} -> {trained.losses[-1]:.3f}, {trained.steps_per_s:.1f} "
                  f"steps/s; saved to {out}")


@app.command()
def generate(model_dir: Path = typer.Option(..., "--model", help="A directory written by `train`."),
             complex_path: Path = typer.Option(..., "--complex", help="PDB/mmCIF with the ligand in its pose."),
             ligand: str = typer.Option(..., help="CCD code of the ligand."),
             function_text: str = typer.Option("", help="What the protein is and does."),
             docking_text: str = typer.Option(None, help="Docking text; default: written by the profiler."),
             ligand_smiles: str = typer.Option(None, help="SMILES; must match the pose's graph."),
             n: int = typer.Option(8, "-n", help="Designs."),
             temperature: float = typer.Option(0.8), seed: int = typer.Option(0),
             out: Path = typer.Option(Path("designs.fasta"), "-o")) -> None:
    """Design `n` pockets for a complex and write them as FASTA (pocket residues in order)."""
    from proceedings.dockwizard.condition import condition_sample
    from proceedings.dockwizard.docking_text import warn_unknown_positions
    from proceedings.dockwizard.features import Featurizer
    from proceedings.dockwizard.model import DockWizard
    from proceedings.dockwizard.training import Trained, sample_designs

    complex_, mol, pocket, found = _condition(complex_path, ligand, ligand_smiles)
    sample = condition_sample(complex_, pocket, found, function_text, docking_text)
    if docking_text:
        warn_unknown_positions(docking_text, pocket)
    model = DockWizard.from_pretrained(model_dir)
    docking = (model_dir / "docking.txt").read_text().strip() if (model_dir / "docking.txt").exists() else "masked"
    trained = Trained(model, Featurizer(docking), [], 0.0)
    texts = [docking_text] if docking_text else None
    designs = sample_designs(trained, [sample], n, temperature, 0.9, seed, docking_texts=texts)[0]
    out.write_text("".join(f">{sample.id}_{i} pocket={' '.join(pocket)}\n{seq}\n" for i, seq in enumerate(designs)))
    console.print(f"{n} designs of {len(pocket)} pocket residues written to {out}\n{NOTICE}")


@app.command("eval")
def eval_(designs: Path = typer.Argument(None, help="FASTA written by `generate` (omit with --native)."),
          complex_path: Path = typer.Option(..., "--complex"), ligand: str = typer.Option(...),
          native: bool = typer.Option(False, help="Score the native pocket instead of designs."),
          out: Path = typer.Option(Path("report.csv"), "-o")) -> None:
    """Pack, dock and profile designs (or the native pocket); one CSV row per design, failures included."""
    import csv
    import tempfile

    from proceedings.dockwizard.condition import condition_sample
    from proceedings.dockwizard.evaluation import evaluate, rows_as_dicts
    from proceedings.dockwizard.judge import LigandMPNNJudge, NativeJudge
    from proceedings.dockwizard.structures import write_pdb

    complex_, mol, pocket, found = _condition(complex_path, ligand, None)
    sample = condition_sample(complex_, pocket, found, "", None)
    if native:
        seqs, judge = [sample.native], NativeJudge()
    elif designs is None:
        raise ProceedingsError("give a FASTA of designs or --native")
    else:
        seqs, judge = read_fasta(designs), LigandMPNNJudge()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "scaffolds").mkdir()
        write_pdb(root / "scaffolds" / f"{sample.scaffold}.pdb", complex_.residues)
        rows = rows_as_dicts(evaluate({"input": {sample.id: seqs}}, [sample], root, judge))
    with out.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    for row in rows:
        console.print(f"{row['sequence']}: Vina {row['vina']} kcal/mol after local opt, satisfied "
                      f"{row['satisfied']}, clashes {row['clashes']} {row['error']}")


def read_fasta(path: Path) -> list[str]:
    if not path.is_file():
        raise ProceedingsError(f"FASTA '{path}' does not exist")
    seqs, current = [], []
    for line in path.read_text().splitlines():
        if line.startswith(">"):
            if current:
                seqs.append("".join(current))
            current = []
        elif line.strip():
            current.append(line.strip())
    if current:
        seqs.append("".join(current))
    if not seqs:
        raise ProceedingsError(f"FASTA '{path}' holds no sequence")
    return seqs
