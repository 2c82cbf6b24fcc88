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
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from proceedings.core.errors import ProceedingsError
from proceedings.core.models import cache_root
from proceedings.pbtbench.integrity import (compile_bytecode, file_digest, make_read_only, recorded_bytecode,
                                            remove_tree, verify_tree)
from proceedings.pbtbench.patching import PatchError, apply_patch
from proceedings.pbtbench.problem import Bug, Problem

log = logging.getLogger(__name__)
FORMAT_VERSION = 3


@dataclass(frozen=True)
class Overlay:
    """A read-only copy of the problem's package with `bugs` applied; `path` goes first on PYTHONPATH."""

    problem_id: str
    bugs: tuple[str, ...]
    key: str
    path: Path  # .../<key>/site-packages
    manifest: dict[str, str] = field(default_factory=dict, compare=False, repr=False)  # what it must hold

    def verify(self) -> None:
        """Raise `TamperedError` unless the overlay holds exactly the bytes its inputs give."""
        verify_tree(self.path, self.manifest, f"the overlay of {self.problem_id} {list(self.bugs) or '(clean)'}")


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
    """Relative path (to site-packages) -> installed file, for the problem's import packages, and the
    distribution's METADATA (name and version: libraries such as portion read their own version at
    import). RECORD stays out: its hashes of the clean files would tell a test which files are patched."""
    dist = _distribution(problem)
    wanted = set(problem.import_names)
    files = {}
    for entry in dist.files or ():
        parts = Path(str(entry)).parts
        top = parts[0].split(".")[0]
        metadata_file = parts[0].endswith(".dist-info") and parts[1:] == ("METADATA",)
        if (top in wanted or metadata_file) and "__pycache__" not in parts and not str(entry).endswith(".pyc"):
            files[str(entry)] = Path(dist.locate_file(entry))
    if not files:
        raise ProceedingsError(f"problem '{problem.id}': {problem.library} installs no files for import "
                               f"names {sorted(wanted)} (check problem.toml's import_names)")
    return dict(sorted(files.items()))


def overlay_key(problem: Problem, bugs: tuple[Bug, ...]) -> str:
    """Content address: format, Python version, package files' bytes, the patches' bytes."""
    digest = hashlib.sha256(f"v{FORMAT_VERSION} py{sys.version_info[:2]} {problem.library}=={problem.version}\n".encode())
    for relative, path in package_files(problem).items():
        digest.update(f"{relative}\0{file_digest(path)}\n".encode())
    for bug in sorted(bugs, key=lambda b: b.id):
        digest.update(f"patch {bug.id}\0{hashlib.sha256(bug.patch.read_bytes()).hexdigest()}\n".encode())
    return digest.hexdigest()[:24]


def build_overlay(problem: Problem, bug_ids: tuple[str, ...] | list[str] = ()) -> Overlay:
    """The overlay with `bug_ids` applied, built on first use and verified by content hash on every use.

    What an overlay must hold is known from its inputs (the installed files with the patches
    applied), so a cached one is trusted only when every file's hash matches that, never on a
    marker; a modified overlay raises `TamperedError`.
    """
    bugs = tuple(problem.bug(b) for b in sorted(set(bug_ids)))
    key = overlay_key(problem, bugs)
    final = overlays_root() / key
    patched = patched_texts(problem, bugs)
    sources = package_files(problem)
    expected = {rel: (hashlib.sha256(patched[rel].encode()).hexdigest() if rel in patched else file_digest(path))
                for rel, path in sources.items()}
    if not final.exists():
        _materialise(final, sources, patched)
        log.debug("overlay %s for %s %s", key, problem.id, [b.id for b in bugs])
    expected.update(recorded_bytecode(final / "site-packages"))
    overlay = Overlay(problem.id, tuple(b.id for b in bugs), key, final / "site-packages", expected)
    overlay.verify()
    return overlay


def _materialise(final: Path, sources: dict[str, Path], patched: dict[str, str]) -> None:
    """Write the overlay into a staging folder and rename it into place (nothing half-built is visible)."""
    final.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=final.parent, prefix=f".build-{final.name}-"))
    try:
        for relative, source in sources.items():
            target = staging / "site-packages" / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            if relative in patched:
                target.write_text(patched[relative])
            else:
                shutil.copyfile(source, target)
        compile_bytecode(staging / "site-packages")
        make_read_only(staging)
        try:
            os.rename(staging, final)
        except OSError:  # another process finished the same overlay first: identical content, verified next
            if not final.exists():
                raise
    finally:
        if staging.exists():
            remove_tree(staging)


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


def compiled_modules(problem: Problem) -> tuple[str, ...]:
    """Dotted names of the distribution's compiled modules (the import guard refuses them)."""
    names = []
    for relative in package_files(problem):
        if relative.endswith((".so", ".pyd")):
            parts = relative.split("/")
            names.append(".".join(parts[:-1] + [parts[-1].split(".")[0]]))
    dist = metadata.distribution(problem.library)
    for entry in dist.files or ():
        text = str(entry)
        if "/" not in text and text.endswith(".so"):
            names.append(text.split(".")[0])
    return tuple(sorted(set(names)))
