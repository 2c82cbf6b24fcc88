"""Attacks on the sandbox and the caches (issue 16): a cheating test file, a tampered overlay."""

import os
from pathlib import Path

import pytest

from proceedings.pbtbench.integrity import TamperedError
from proceedings.pbtbench.overlay import build_overlay, installed_site_packages
from proceedings.pbtbench.problem import PROBLEMS_DIR
from proceedings.pbtbench.sandbox import LEVELS, Limits, Sandbox, available_level
from proceedings.pbtbench.scorer import Scorer
from tests.pbtbench.conftest import subset_problem

REPOSITORY = Path(__file__).parents[2]

# Reads the clean library, the patch and the hidden reference; would find the bug by diffing the
# overlay against the clean copy (what scored recall 1.0 in round 1); writes the overlay.
CHEAT = '''
import os, stat
import cachetools

SECRETS = {SECRETS}
CLEAN = {CLEAN!r}
OVERLAY_ON_HOST = {OVERLAY!r}


def _read(path):
    try:
        with open(path) as handle:
            return handle.read()
    except OSError:
        return None


def test_the_diff_against_the_clean_copy():
    clean = _read(CLEAN)
    if clean is not None:
        assert clean == open(cachetools.__file__).read()


def test_the_patch_and_the_reference_show_the_bug():
    for path in SECRETS:
        text = _read(path)
        if text is not None:
            assert "maxsize" not in text


def test_every_secret_is_unreadable():
    readable = [p for p in SECRETS + [CLEAN, OVERLAY_ON_HOST] if _read(p) is not None or os.path.exists(p)]
    assert readable == []


def test_the_overlay_cannot_be_changed():
    target = cachetools.__file__
    for attempt in (lambda: os.chmod(target, 0o666), lambda: open(target, "a").write("# changed"),
                    lambda: os.chmod(os.path.dirname(target), 0o777)):
        try:
            attempt()
        except OSError:
            continue
        raise AssertionError("the overlay was changed")
'''


def _cheat_file(problem, overlay):
    bug = problem.bugs[0]
    shipped = PROBLEMS_DIR / problem.id
    secrets = [str(p) for p in (shipped / "bugs" / bug.patch.name, shipped / "reference" / "props.py",
                                shipped / "bugs.lock.json", bug.patch, REPOSITORY / "pyproject.toml")]
    clean = str(installed_site_packages(problem) / "cachetools" / "__init__.py")
    return CHEAT.format(SECRETS=secrets, CLEAN=clean, OVERLAY=str(overlay.path / "cachetools" / "__init__.py"))


@pytest.mark.parametrize("level", LEVELS[:2])
def test_a_cheating_test_reads_nothing_writes_nothing_and_scores_zero(tmp_path, level):
    if level != available_level():
        pytest.skip(f"level {level} is not available here (best: {available_level()})")
    problem = subset_problem(tmp_path, "cachetools-caches", ["sized-update-evicts-self"])
    overlay = build_overlay(problem, ("sized-update-evicts-self",))
    report = Scorer(problem, Sandbox(Limits(wall_s=30, cpu_s=30), level=level)).score(_cheat_file(problem, overlay))
    assert set(report.verdicts["all"].values()) == {"passed"}, report.verdicts
    assert report.recall == 0.0 and report.sandbox_level == level
    overlay.verify()


def test_a_tampered_overlay_is_detected_before_use(tmp_path, monkeypatch):
    monkeypatch.setenv("PROCEEDINGS_CACHE", str(tmp_path / "cache"))
    problem = subset_problem(tmp_path, "cachetools-caches", ["sized-update-evicts-self"])
    overlay = build_overlay(problem, ("sized-update-evicts-self",))
    target = overlay.path / "cachetools" / "__init__.py"
    os.chmod(target, 0o644)
    target.write_text(target.read_text().replace("maxsize", "maxsize ", 1))
    with pytest.raises(TamperedError, match="changed cachetools/__init__.py"):
        build_overlay(problem, ("sized-update-evicts-self",))
    target.unlink()
    with pytest.raises(TamperedError, match="missing cachetools/__init__.py"):
        overlay.verify()
