import os
import shutil

import pytest

from proceedings.pbtbench.integrity import installed_fingerprint
from proceedings.pbtbench.overlay import build_overlay, installed_site_packages, overlays_root, package_files
from proceedings.pbtbench.patching import PatchError
from tests.pbtbench.conftest import subset_problem


def test_overlays_are_content_addressed_read_only_copies_under_site_packages(lru_problem):
    before = installed_fingerprint([lru_problem.library])
    clean = build_overlay(lru_problem, ())
    buggy = build_overlay(lru_problem, ("sized-update-evicts-self",))
    assert build_overlay(lru_problem, ("sized-update-evicts-self",)).key == buggy.key
    assert clean.key != buggy.key and "/site-packages" in str(buggy.path)
    site = installed_site_packages(lru_problem)
    for relative in package_files(lru_problem):
        same = (clean.path / relative).read_bytes() == (site / relative).read_bytes()
        assert same, relative
        assert not os.access(buggy.path / relative, os.W_OK) or os.geteuid() == 0
        assert (buggy.path / relative).stat().st_mode & 0o222 == 0
    changed = (buggy.path / "cachetools/__init__.py").read_text() != (site / "cachetools/__init__.py").read_text()
    assert changed
    assert installed_fingerprint([lru_problem.library]) == before


def test_an_overlay_carries_the_version_metadata_and_no_file_hashes(lru_problem):
    overlay = build_overlay(lru_problem, ())
    dist_info = [path for path in overlay.path.iterdir() if path.name.endswith(".dist-info")]
    assert [path.name for path in dist_info] == [f"cachetools-{lru_problem.version}.dist-info"]
    assert [path.name for path in dist_info[0].iterdir()] == ["METADATA"]  # no RECORD: it hashes the clean files


def test_a_patch_that_does_not_apply_leaves_no_overlay(tmp_path, monkeypatch):
    problem = subset_problem(tmp_path, "cachetools-caches", ["sized-exact-capacity"])
    patch = problem.bug("sized-exact-capacity").patch
    patch.write_text(patch.read_text().replace("if itemsize > maxsize", "if itemsize > maxsize + 0"))
    monkeypatch.setenv("PROCEEDINGS_CACHE", str(tmp_path / "cache"))
    with pytest.raises(PatchError, match="does not match"):
        build_overlay(problem, ("sized-exact-capacity",))
    assert not any(overlays_root().glob("*")) if overlays_root().exists() else True


def test_a_wrong_library_version_is_refused_with_the_fix(tmp_path):
    problem = subset_problem(tmp_path, "cachetools-caches", ["sized-exact-capacity"])
    toml = problem.root / "problem.toml"
    toml.write_text(toml.read_text().replace('version = "8.0.2"', 'version = "1.0.0"'))
    from proceedings.core.errors import ProceedingsError
    from proceedings.pbtbench.problem import load_problem

    with pytest.raises(ProceedingsError, match=r"pip install 'cachetools==1.0.0'"):
        build_overlay(load_problem(problem.root), ())
    shutil.rmtree(problem.root)
