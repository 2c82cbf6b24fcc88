"""The data builder resumes: an item made once is a cache hit afterwards, keyed by its inputs."""

import json

import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.dockwizard.builder import BuildReport, ItemCache


def test_a_rerun_after_an_interruption_recomputes_nothing_it_finished(tmp_path):
    calls = []

    def dock():
        calls.append(1)
        return {"energy": -7.1}

    first = BuildReport()
    assert ItemCache(tmp_path, first).get_or_make("dock", {"scaffold": "6WQA", "ligand": "GCS"}, dock) == {"energy": -7.1}
    second = BuildReport()
    cache = ItemCache(tmp_path, second)
    assert cache.get_or_make("dock", {"scaffold": "6WQA", "ligand": "GCS"}, dock) == {"energy": -7.1}
    assert (len(calls), second.cache_hits, second.computed) == (1, 1, {})
    cache.get_or_make("dock", {"scaffold": "6WQA", "ligand": "N0T"}, dock)  # other inputs: computed
    assert (len(calls), second.computed) == (2, {"dock": 1})


class _FlakyTeacher:
    """Stands in for LigandMPNN's `design`: one design per pose, and it fails on call `fail_at`."""

    def __init__(self, fail_at: int | None = None):
        self.calls, self.fail_at = [], fail_at

    def design(self, complexes, n):
        self.calls.append([(c.name, c.ligand.code) for c, _ in complexes])
        if len(self.calls) == self.fail_at:
            raise RuntimeError("LigandMPNN killed")
        return [[(c.ligand.code, [])] for c, _ in complexes]


@pytest.fixture()
def fake_tools(monkeypatch):
    """Two pockets; a docking (counted) keeps every pose but the ones into pocket B of ligand L1; the Vina-best
    design is the teacher's first."""
    import numpy as np

    from proceedings.dockwizard import builder
    from proceedings.dockwizard.structures import Complex, Ligand

    docked = []

    def dock(c, code, seed, report=None):
        docked.append((c.name, code))
        return {"energy": -5.0 if (c.name, code) == ("B", "L1") else -7.0, "names": ["C1"], "elements": ["C"],
                "xyz": [[float(len(docked)), 0.0, 0.0]]}

    monkeypatch.setattr(builder, "dock", dock)
    monkeypatch.setattr(builder, "best_design", lambda c, designs: {"sequence": designs[0][0]})
    natives = [(Complex(name, [], Ligand("NAT", ["C1"], ["C"], np.zeros((1, 3)))), "text") for name in "AB"]
    return natives, docked


def _targets(made):
    return [[None if kept is None else kept[2]["sequence"] for kept in per_pocket] for per_pocket in made]


def test_an_interrupted_build_loses_at_most_the_pose_in_progress(tmp_path, fake_tools):
    """Every docking and every distilled pose is cached as soon as it is made: a rerun after LigandMPNN was
    killed on its third pose docks nothing again and distils only the poses not yet cached."""
    from proceedings.dockwizard.builder import BuildConfig, grow

    natives, docked = fake_tools
    ligands = ["L0", "L1", "L2"]
    with pytest.raises(RuntimeError):
        grow(ItemCache(tmp_path, BuildReport()), natives, ligands, _FlakyTeacher(fail_at=3), BuildConfig())
    assert docked == [("A", "L0"), ("B", "L0"), ("A", "L1")]
    report, teacher = BuildReport(), _FlakyTeacher()
    made = grow(ItemCache(tmp_path, report), natives, ligands, teacher, BuildConfig())
    assert _targets(made) == [["L0", "L0"], ["L1", None], ["L2", "L2"]]
    assert teacher.calls == [[("A", "L1")], [("A", "L2")], [("B", "L2")]]  # one pose per LigandMPNN call
    assert docked[3:] == [("B", "L1"), ("A", "L2"), ("B", "L2")]
    assert (report.cache_hits, report.computed) == (5, {"dock": 3, "distil": 3})  # hits: 3 dockings, 2 poses


def test_past_its_deadline_a_build_starts_no_docking_and_keeps_only_finished_ligands(tmp_path, fake_tools, monkeypatch):
    """The deadline passes while L0's pose in pocket A is distilled: that docking and pose stay cached, the
    docking into pocket B does not start, L0 is not returned as finished; a rerun finishes L0 and goes on."""
    from proceedings.dockwizard import builder
    from proceedings.dockwizard.builder import BuildConfig, grow

    natives, docked = fake_tools
    checks = iter([False])
    monkeypatch.setattr(builder, "past_deadline", lambda deadline: deadline is not None and next(checks, True))
    assert grow(ItemCache(tmp_path, BuildReport()), natives, ["L0", "L1"], _FlakyTeacher(), BuildConfig(), deadline=1.0) == []
    assert docked == [("A", "L0")]
    report = BuildReport()
    made = grow(ItemCache(tmp_path, report), natives, ["L0", "L1"], _FlakyTeacher(), BuildConfig(), deadline=None)
    assert _targets(made) == [["L0", "L0"], ["L1", None]] and report.cache_hits == 2


def test_a_pose_cached_in_meeko_atom_order_is_renamed_not_docked_again(tmp_path):
    """A format-1 cache entry (coordinates in meeko's order under CCD names: a scrambled ligand) becomes the
    CCD-ordered pose of the same docking; its bonds have covalent lengths again."""
    import numpy as np

    from proceedings.dockwizard.builder import _docked_or_renamed, dock_input, meeko_molecule
    from proceedings.dockwizard.ligands import ccd_molecule, posed_molecule
    from proceedings.dockwizard.structures import Complex, Ligand

    def bonds(pose):
        mol = posed_molecule(Ligand("ZMA", pose["names"], pose["elements"], np.array(pose["xyz"])))
        xyz = mol.GetConformer().GetPositions()
        return np.array([np.linalg.norm(xyz[b.GetBeginAtomIdx()] - xyz[b.GetEndAtomIdx()]) for b in mol.GetBonds()])

    meeko_order = meeko_molecule(dock_input("ZMA")).GetConformer().GetPositions()
    names = [a.GetProp("name") for a in ccd_molecule("ZMA").GetAtoms()]
    format1 = {"energy": -7.5, "names": names, "elements": ["C"] * len(names), "xyz": meeko_order.tolist()}
    with pytest.raises(ProceedingsError, match="atom names do not match"):  # what the old cache held
        bonds(format1)
    cache = ItemCache(tmp_path, BuildReport())
    cache.path("dock", {"scaffold": "6WQA_ZMA", "ligand": "ZMA", "seed": 0}).write_text(json.dumps(format1))
    pose = _docked_or_renamed(cache, Complex("6WQA_ZMA", [], None), "ZMA", 0)  # no receptor: docking would fail
    assert pose["energy"] == -7.5 and bonds(pose).max() < 1.6


def _spin(cpu_s: float = 10.0) -> str:
    """Burns `cpu_s` CPU seconds (a stand-in for a docking that will not end soon), then answers."""
    import time

    end = time.process_time() + cpu_s
    while time.process_time() < end:
        pass
    return "spun"


def _fail():
    raise ProceedingsError("no receptor")


def test_a_docking_past_its_cpu_limit_is_stopped_and_counted_as_not_docked():
    """Spec §7: Vina gets a time limit per pose; the limit is CPU seconds, so it falls alike under any load."""
    from proceedings.dockwizard.builder import cpu_capped

    assert cpu_capped(sum, ((1, 2),), 5) == (True, 3)
    assert cpu_capped(_spin, (), 1) == (False, None)
    with pytest.raises(ProceedingsError, match="no receptor"):  # an error is not a timeout
        cpu_capped(_fail, (), 5)


def test_a_shell_cpu_limit_below_the_dockings_is_refused_not_taken_for_a_timeout(monkeypatch):
    """`ulimit -t 50` once stopped a docking at 50 CPU-s that the build then cached as past its 300."""
    import resource

    from proceedings.dockwizard import builder

    monkeypatch.setattr(builder.resource, "getrlimit", lambda which: (50, 50) if which == resource.RLIMIT_CPU else
                        resource.getrlimit(which))
    with pytest.raises(ProceedingsError, match=r"limits a process to 50 CPU-s \(`ulimit -t`\), below the 300"):
        builder.cpu_capped(sum, ((1, 2),), 300)
