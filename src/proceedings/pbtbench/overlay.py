"""Bug injection into isolated, content-addressed copies of an installed package (spec 2.2).

An overlay is `<cache>/pbtbench/overlays/<key>/site-packages/<package files>`, where the key hashes
the package's files, the applied patches and the Python version: "clean", "all bugs", "all but i"
and "only i" are separate cached folders, and deleting one is the revert. The installed package
in site-packages is only ever read. The `/site-packages/` path component matters: Hypothesis
treats code outside such paths as the user's own and mines its literals to steer generation, so
every configuration, clean included, is served from a copy under such a path.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from proceedings.core.errors import ProceedingsError
from proceedings.core.models import cache_root
from proceedings.pbtbench.patching import PatchError, apply_patch
from proceedings.pbtbench.problem import Bug, Problem

log = logging.getLogger(__name__)
FORMAT_VERSION = 1
_COMPLETE = ".complete"


@dataclass(frozen=True)
class Overlay:
    """A read-only copy of the problem's package with `bugs` applied; `path` goes first on PYTHONPATH."""

    problem_id: str
    bugs: tuple[str, ...]
    key: str
    path: Path  # .../<key>/site-packages


def overlays_root() -> Path:
    return cache_root() / "pbtbench" / "overlays"


def installed_site_packages(problem: Problem) -> Path:
    """The site-packages folder holding the problem's library, checked against the exact pin."""
    dist = _distribution(problem)
    return Path(dist.locate_file("")).resolve()


def _distribution(problem: Problem) -> metadata.Distribution:
    try:
        dist = metadata.distribution(problem.library)
    except metadata.PackageNotFoundError:
        raise ProceedingsError(f"problem '{problem.id}' needs {problem.library}=={problem.version}, which is "
                               f"not installed; run `pip install '{problem.library}=={problem.version}'`") from None
    if dist.version != problem.version:
        raise ProceedingsError(f"problem '{problem.id}' pins {problem.library}=={problem.version} but "
                               f"{dist.version} is installed; run `pip install '{problem.library}=={problem.version}'`")
    return dist


def package_files(problem: Problem) -> dict[str, Path]:
    """Relative path (to site-packages) -> installed file, for the problem's import packages."""
    dist = _distribution(problem)
    wanted = set(problem.import_names)
    files = {}
    for entry in dist.files or ():
        parts = Path(str(entry)).parts
        top = parts[0].split(".")[0]
        if top in wanted and "__pycache__" not in parts and not str(entry).endswith(".pyc"):
            files[str(entry)] = Path(dist.locate_file(entry))
    if not files:
        raise ProceedingsError(f"problem '{problem.id}': {problem.library} installs no files for import "
                               f"names {sorted(wanted)} (check problem.toml's import_names)")
    return dict(sorted(files.items()))


def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def overlay_key(problem: Problem, bugs: tuple[Bug, ...]) -> str:
    """Content address: format, Python version, package files' bytes, the patches' bytes."""
    digest = hashlib.sha256(f"v{FORMAT_VERSION} py{sys.version_info[:2]} {problem.library}=={problem.version}\n".encode())
    for relative, path in package_files(problem).items():
        digest.update(f"{relative}\0{_file_digest(path)}\n".encode())
    for bug in sorted(bugs, key=lambda b: b.id):
        digest.update(f"patch {bug.id}\0{hashlib.sha256(bug.patch.read_bytes()).hexdigest()}\n".encode())
    return digest.hexdigest()[:24]


def build_overlay(problem: Problem, bug_ids: tuple[str, ...] | list[str] = ()) -> Overlay:
    """The overlay with `bug_ids` applied (built on first use; nothing half-built is ever visible)."""
    bugs = tuple(problem.bug(b) for b in sorted(set(bug_ids)))
    key = overlay_key(problem, bugs)
    final = overlays_root() / key
    overlay = Overlay(problem.id, tuple(b.id for b in bugs), key, final / "site-packages")
    if (final / _COMPLETE).exists():
        return overlay
    final.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=final.parent, prefix=f".build-{key}-"))
    try:
        patched = patched_texts(problem, bugs)
        for relative, source in package_files(problem).items():
            target = staging / "site-packages" / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            if relative in patched:
                target.write_text(patched[relative])
            else:
                shutil.copyfile(source, target)
        (staging / _COMPLETE).write_text(f"{problem.id} {' '.join(overlay.bugs)}\n")
        _make_read_only(staging)
        try:
            os.rename(staging, final)
        except OSError:  # another process finished the same overlay first: identical content
            if not (final / _COMPLETE).exists():
                raise
    finally:
        if staging.exists():
            remove_tree(staging)
    log.debug("overlay %s for %s %s", key, problem.id, overlay.bugs)
    return overlay


def patched_texts(problem: Problem, bugs: tuple[Bug, ...]) -> dict[str, str]:
    """The files the patches change, after applying them in order (dry run: nothing is written)."""
    site = installed_site_packages(problem)
    texts: dict[str, str] = {}

    def read(relative: str) -> str:
        return texts[relative] if relative in texts else (site / relative).read_text()

    for bug in bugs:
        try:
            texts.update(apply_patch(read, bug.patch_text, str(bug.patch)))
        except PatchError as err:
            others = [b.id for b in bugs if b is not bug]
            raise PatchError(f"{err} (applied on top of: {', '.join(others) or 'the clean package'})") from None
    return texts


def _make_read_only(root: Path) -> None:
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            os.chmod(os.path.join(dirpath, name), 0o444)
        os.chmod(dirpath, 0o555)


def remove_tree(root: Path) -> None:
    """Delete a (read-only) overlay or staging folder."""
    for dirpath, _dirnames, _filenames in os.walk(root):
        os.chmod(dirpath, 0o755)
    shutil.rmtree(root, ignore_errors=True)


RUNNER_DISTRIBUTIONS = ("hypothesis", "pytest", "pluggy", "sortedcontainers", "iniconfig")


def site_packages_fingerprint(problems: list[Problem]) -> str:
    """Hash of the installed bytes of every library under test and of the test runner (spec 2.2).

    Taken before and after a run: a write into any of them changes it. Limited to these
    distributions (not all of site-packages) because other packages may legitimately be installed
    on a shared machine while a run goes on.
    """
    digest = hashlib.sha256()
    names = sorted({p.library for p in problems} | set(RUNNER_DISTRIBUTIONS))
    for name in names:
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        for entry in sorted(dist.files or (), key=str):
            path = Path(dist.locate_file(entry))
            if "__pycache__" in path.parts or not path.is_file():
                continue
            digest.update(f"{name}/{entry}\0{_file_digest(path)}\n".encode())
    return digest.hexdigest()
