"""LigandMPNN as judge and teacher, in its own venv, called as one batched subprocess per stage.

- `pack`: the structure stage. The designed pocket is *forced* by omitting every other amino acid at
  each designed position (`--omit_AA_per_residue_multi`), so LigandMPNN's sampler returns exactly the
  given sequence, its log-likelihood of it (`overall_confidence` = exp(-mean NLL), from unbiased
  log-probabilities) and one side-chain pack with the ligand as context. Undesigned residues keep
  their input atoms (only designed positions are read back from the packed file).
- `design`: LigandMPNN's own pocket designs (the builder's distilled targets; the no-text reference).
Fixed argument lists, a timeout per batch (spec §7: 1,800 s), and failures per design, never fatal.
Repeatable: an explicit nonzero seed (`seeds.tool_seed`; LigandMPNN draws a random one for 0), one
LigandMPNN run per input PDB (`ligandmpnn_calls.py`: re-seeded each time, so a design's pack does not
depend on what else is in the batch), one torch/OpenMP thread and a fixed hash seed in the subprocess.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from proceedings.dockwizard.assets import ligandmpnn_python
from proceedings.dockwizard.data import Sample
from proceedings.dockwizard.seeds import tool_seed
from proceedings.dockwizard.structures import AMINO_ACIDS, Complex, Residue, read_complex, write_pdb

TIMEOUT_S = 1800
# the subprocess's environment on top of ours: one thread (float sums then do not depend on the core
# count) and a fixed hash seed (set iteration order inside LigandMPNN and ProDy)
REPEATABLE_ENV = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}


@dataclass
class Pack:
    residues: list[Residue] | None = None  # the packed designed residues
    log_likelihood: float | None = None  # mean log-probability per designed residue
    sequence: str = ""
    error: str = ""


class LigandMPNNJudge:
    def __init__(self, seed: int = 0, temperature: float = 0.1):
        self.seed, self.temperature = seed, temperature

    def _run(self, work: Path, inputs: dict[str, list[str]], omit: dict | None, pack: bool, n: int) -> None:
        """One LigandMPNN `run.main` per input PDB (`n` designs each), all in one subprocess."""
        calls = []
        for i, (pdb, keys) in enumerate(inputs.items()):
            files = {"pdb_path_multi": {pdb: ""}, "redesigned_residues_multi": {pdb: " ".join(keys)}}
            if omit:
                files["omit_AA_per_residue_multi"] = {pdb: omit[pdb]}
            args = ["--model_type", "ligand_mpnn", "--out_folder", str(work / "out"),
                    "--seed", str(tool_seed(self.seed)), "--batch_size", str(n),
                    "--temperature", str(self.temperature), "--verbose", "0",
                    "--pack_side_chains", "1" if pack else "0", "--number_of_packs_per_design", "1",
                    "--pack_with_ligand_context", "1", "--repack_everything", "0"]
            for option, content in files.items():
                path = work / f"call{i:04d}_{option}.json"
                path.write_text(json.dumps(content))
                args += [f"--{option}", str(path)]
            calls.append(args)
        (work / "calls.json").write_text(json.dumps(calls))
        command = [str(ligandmpnn_python()), str(Path(__file__).with_name("ligandmpnn_calls.py")), str(work / "calls.json")]
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S, cwd=work,
                              env={**os.environ, **REPEATABLE_ENV})
        if done.returncode != 0:
            raise RuntimeError(f"LigandMPNN failed (exit {done.returncode}): {done.stderr.strip().splitlines()[-1:]}")

    def pack(self, jobs: list[tuple[Sample, str]], root: Path, work: Path | None = None) -> list[Pack]:
        """One forced-sequence pack per (condition, pocket sequence), in one subprocess."""
        if not jobs:
            return []
        with tempfile.TemporaryDirectory(dir=work) as tmp:
            tmp = Path(tmp)
            inputs, omit = {}, {}
            for i, (sample, seq) in enumerate(jobs):
                path = str(_input_pdb(tmp, f"d{i:04d}", sample.scaffold_complex(root)))
                inputs[path] = sample.pocket
                omit[path] = {key: AMINO_ACIDS.replace(aa, "") for key, aa in zip(sample.pocket, seq)}
            try:
                self._run(tmp, inputs, omit, pack=True, n=1)
            except (RuntimeError, subprocess.TimeoutExpired) as err:
                return [Pack(error=str(err)) for _ in jobs]
            return [_read_pack(tmp / "out", f"d{i:04d}", sample.pocket, seq) for i, (sample, seq) in enumerate(jobs)]

    def design(self, complexes: list[tuple[Complex, list[str]]], n: int) -> list[list[tuple[str, list[Residue] | None]]]:
        """`n` LigandMPNN pocket designs per (complex, pocket), each packed once, in one subprocess
        (the builder's teacher)."""
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            names = [f"c{i:04d}" for i in range(len(complexes))]
            inputs = {str(_input_pdb(tmp, name, c)): pocket for name, (c, pocket) in zip(names, complexes)}
            self._run(tmp, inputs, None, pack=True, n=n)
            out = []
            for name, (c, pocket) in zip(names, complexes):
                designs = []
                for k, (seq, _) in enumerate(_fasta_designs(tmp / "out" / "seqs" / f"{name}.fa", path_keys(c, pocket))):
                    packed = tmp / "out" / "packed" / f"{name}_packed_{k + 1}_1.pdb"
                    designs.append((seq, _pocket_residues(packed, pocket) if packed.exists() else None))
                out.append(designs)
            return out

    def design_sequences(self, samples: list[Sample], root: Path, n: int) -> list[list[str]]:
        """LigandMPNN's own `n` designs per condition (the no-text reference arm), in one subprocess; no
        packing here (the evaluation packs them like every other arm's)."""
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            names = [f"r{i:04d}" for i in range(len(samples))]
            complexes = [s.scaffold_complex(root) for s in samples]
            self._run(tmp, {str(_input_pdb(tmp, name, c)): s.pocket for name, c, s in zip(names, complexes, samples)},
                      None, pack=False, n=n)
            return [[seq for seq, _ in _fasta_designs(tmp / "out" / "seqs" / f"{name}.fa", path_keys(c, s.pocket))]
                    for name, c, s in zip(names, complexes, samples)]


class NativeJudge:
    """The structure stage for the native pocket: its own side chains, no packing (`eval --native`)."""

    def pack(self, jobs: list[tuple[Sample, str]], root: Path, work: Path | None = None) -> list[Pack]:
        out = []
        for sample, seq in jobs:
            complex_ = sample.scaffold_complex(root)
            out.append(Pack([complex_.residue(k) for k in sample.pocket], None, seq))
        return out


def _input_pdb(folder: Path, name: str, complex_: Complex) -> Path:
    return write_pdb(folder / f"{name}.pdb", complex_.residues, complex_.ligand)


def path_keys(complex_: Complex, pocket: list[str]) -> list[int]:
    """Indices of the pocket residues in the full sequence LigandMPNN writes."""
    keys = [r.key for r in complex_.residues]
    return [keys.index(k) for k in pocket]


_CONFIDENCE = re.compile(r"overall_confidence=([0-9.]+)")


def _fasta_designs(path: Path, index: list[int]) -> list[tuple[str, float]]:
    """(pocket sequence, overall confidence) of each design in a LigandMPNN FASTA (the first record is
    the input)."""
    lines = path.read_text().splitlines()
    out = []
    for header, seq in zip(lines[2::2], lines[3::2]):
        full = seq.replace(":", "")
        match = _CONFIDENCE.search(header)
        out.append(("".join(full[i] for i in index), float(match[1]) if match else float("nan")))
    return out


def _pocket_residues(path: Path, pocket: list[str]) -> list[Residue]:
    packed = read_complex(path, None)
    by_key = {r.key: r for r in packed.residues}
    return [by_key[k] for k in pocket if k in by_key]


def _read_pack(out: Path, name: str, pocket: list[str], seq: str) -> Pack:
    fasta, packed = out / "seqs" / f"{name}.fa", out / "packed" / f"{name}_packed_1_1.pdb"
    if not fasta.exists() or not packed.exists():
        return Pack(error="LigandMPNN wrote no packed complex for this design")
    header = fasta.read_text().splitlines()[2]
    match = _CONFIDENCE.search(header)
    residues = _pocket_residues(packed, pocket)
    got = "".join(r.letter for r in residues)
    if got != seq:
        return Pack(error=f"packed PDB does not carry the design ({got} != {seq})")
    return Pack(residues, float(np.log(float(match[1]))) if match else None, seq)
