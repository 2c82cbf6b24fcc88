"""A run repeats itself: Vina and LigandMPNN read seed 0 as "draw one at random", so every call passes
`tool_seed(seed)` (never 0) and the LigandMPNN subprocess runs on one thread with a fixed hash seed.
Before, the tiny record's packs (and so its Vina scores, drift and verdict) changed from run to run, and
within a run a design's pack depended on the designs packed before it in the same LigandMPNN batch."""

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.dockwizard import builder, docking, judge
from proceedings.dockwizard.assets import has_ligandmpnn
from proceedings.dockwizard.data import FIXTURE, load_samples
from proceedings.dockwizard.seeds import tool_seed


def test_tool_seeds_are_never_the_tools_random_zero_and_a_negative_seed_is_one_line():
    assert [tool_seed(s) for s in (0, 1, 7)] == [1, 2, 8]
    with pytest.raises(ProceedingsError, match="seed must be >= 0"):
        tool_seed(-1)


def test_ligandmpnn_runs_once_per_design_with_a_nonzero_seed_one_thread_and_a_fixed_hash_seed(monkeypatch, tmp_path):
    calls = []

    def run(command, **kwargs):
        calls.append((json.loads(Path(command[-1]).read_text()), kwargs["env"]))
        return type("Done", (), {"returncode": 0, "stderr": ""})()

    monkeypatch.setattr(judge.subprocess, "run", run)
    monkeypatch.setattr(judge, "ligandmpnn_python", lambda: Path("python"))
    samples = load_samples()[:2]
    packs = judge.LigandMPNNJudge(seed=0).pack([(s, s.target) for s in samples], FIXTURE, tmp_path)
    assert all("wrote no packed complex" in p.error for p in packs)  # nothing ran: the call is what is checked
    (runs, env), = calls  # one subprocess ...
    assert len(runs) == 2  # ... re-seeded for each design
    assert [args[args.index("--seed") + 1] for args in runs] == ["1", "1"]
    assert (env["OMP_NUM_THREADS"], env["MKL_NUM_THREADS"], env["PYTHONHASHSEED"]) == ("1", "1", "0")


class _StopAtVina(Exception):
    pass


def test_vina_gets_a_nonzero_seed_and_one_cpu_when_scoring_and_when_docking(monkeypatch, a2a):
    seen = []

    def vina(**kwargs):
        seen.append(kwargs)
        raise _StopAtVina

    monkeypatch.setattr(docking, "vina_class", lambda: vina)
    complex_, mol = a2a
    few = replace(complex_, residues=complex_.residues[:3])  # the receptor is prepared before Vina starts
    with pytest.raises(_StopAtVina):
        docking.vina_scores(few.residues, mol, seed=0)
    with pytest.raises(_StopAtVina):
        builder.vina_dock(few, "ZMA", seed=0)
    assert [(k["seed"], k["cpu"]) for k in seen] == [(1, 1), (1, 1)]


@pytest.mark.slow  # two redockings at exhaustiveness 1: ~9 CPU-s
def test_redocking_twice_gives_the_same_energy_and_pose(a2a):
    complex_, mol = a2a
    first, second = (docking.vina_scores(complex_.residues, mol, redock=True, exhaustiveness=1) for _ in range(2))
    assert first == second and np.array_equal(first.optimized_xyz, second.optimized_xyz)


@pytest.mark.slow  # two LigandMPNN subprocesses: ~90 CPU-s, mostly torch start-up and weights
@pytest.mark.skipif(not has_ligandmpnn(), reason="LigandMPNN venv missing: run `make dockwizard-assets`")
def test_a_pack_depends_only_on_its_design_not_on_the_call_or_the_designs_packed_before_it(tmp_path):
    a, b = sorted(load_samples(), key=lambda s: len(s.pocket))[:2]
    first = judge.LigandMPNNJudge(seed=0).pack([(a, a.target), (b, b.target), (a, a.target)], FIXTURE, tmp_path)
    (second,) = judge.LigandMPNNJudge(seed=0).pack([(a, a.target)], FIXTURE, tmp_path)
    for pack in (first[2], second):
        assert not pack.error and pack.log_likelihood == first[0].log_likelihood
        for got, want in zip(pack.residues, first[0].residues, strict=True):
            assert got.key == want.key and all(np.array_equal(got.atoms[n], want.atoms[n]) for n in want.atoms)
