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
    assert (len(calls), second.cache_hits, second.computed) == (1, 1, 0)
    cache.get_or_make("dock", {"scaffold": "6WQA", "ligand": "N0T"}, dock)  # other inputs: computed
    assert (len(calls), second.computed) == (2, 1)


class _FlakyTeacher:
    """Stands in for LigandMPNN's `design`: one design per pose, and it fails on call `fail_at`."""

    def __init__(self, fail_at: int | None = None):
        self.calls, self.fail_at = [], fail_at

    def design(self, complexes, n):
        self.calls.append([c.ligand.code for c, _ in complexes])
        if len(self.calls) == self.fail_at:
            raise RuntimeError("LigandMPNN killed")
        return [[(c.ligand.code, [])] for c, _ in complexes]


def test_distillation_interrupted_after_a_chunk_resumes_with_the_poses_it_had_not_scored(tmp_path, monkeypatch):
    import numpy as np
    import pytest

    from proceedings.dockwizard import builder
    from proceedings.dockwizard.builder import BuildConfig, distil
    from proceedings.dockwizard.structures import Complex, Ligand

    monkeypatch.setattr(builder, "best_design", lambda docked, designs: {"sequence": designs[0][0]})
    poses = [Complex("6WQA_ZMA", [], Ligand(f"L{i}", ["C1"], ["C"], np.array([[float(i), 0.0, 0.0]])))
             for i in range(builder.DISTIL_CHUNK + 2)]
    first = _FlakyTeacher(fail_at=2)
    with pytest.raises(RuntimeError):
        distil(ItemCache(tmp_path, BuildReport()), poses, first, BuildConfig())
    report, second = BuildReport(), _FlakyTeacher()
    targets = distil(ItemCache(tmp_path, report), poses, second, BuildConfig())
    assert [t["sequence"] for t in targets] == [p.ligand.code for p in poses]
    assert second.calls == [["L4", "L5"]]  # the first chunk was cached before the second failed
    assert (report.cache_hits, report.computed) == (builder.DISTIL_CHUNK, 2)


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
