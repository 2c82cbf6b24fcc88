"""Content hashes: trees the sandbox mounts are verified before use, installed libraries are
hashed around every run of untrusted code (issue 16: score, agent runs and validation alike).

A cached tree (an overlay, the test runtime) is trusted only when every file's SHA-256 matches
what its inputs say it must hold, never on a marker file. The installed libraries under test and
the test runner are fingerprinted before and after `score`, an agent's runs and `validate`: a
change means something escaped the sandbox, and the run fails loudly.
"""

from __future__ import annotations

import compileall
import contextlib
import hashlib
import json
import os
import py_compile
import shutil
from importlib import metadata
from pathlib import Path
from typing import Iterable, Iterator

from proceedings.core.errors import ProceedingsError

RUNNER_DISTRIBUTIONS = ("hypothesis", "pytest", "pluggy", "sortedcontainers", "iniconfig", "packaging", "pygments")


class TamperedError(ProceedingsError):
    """A verified tree or an installed library does not hold the bytes it must."""


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def tree_manifest(root: Path) -> dict[str, str]:
    """Relative path -> SHA-256 of every file below `root` (symlinks are refused: none are built)."""
    manifest = {}
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            path = Path(dirpath) / name
            if path.is_symlink():
                raise TamperedError(f"{path}: a symlink inside a verified tree; delete {root} and rerun")
            manifest[str(path.relative_to(root))] = file_digest(path)
    return dict(sorted(manifest.items()))


def verify_tree(root: Path, expected: dict[str, str], what: str) -> None:
    """Raise naming the first difference unless `root` holds exactly the `expected` files."""
    found = tree_manifest(root)
    if found == expected:
        return
    extra = sorted(set(found) - set(expected))
    missing = sorted(set(expected) - set(found))
    changed = sorted(k for k in set(found) & set(expected) if found[k] != expected[k])
    detail = (f"changed {changed[0]}" if changed else f"unexpected file {extra[0]}" if extra
              else f"missing {missing[0]}")
    raise TamperedError(f"{what} at {root} does not match its content hash ({detail}); it was modified after "
                        f"it was built: delete {root.parent} and rerun")


BYTECODE = "bytecode.json"  # beside a tree's site-packages: digests of the bytecode compiled at build time


def compile_bytecode(site: Path) -> None:
    """Compile a staged tree's sources (so a sandboxed run, which writes no bytecode, imports fast)
    and record the bytecode's digests beside the tree; sources are verified against their inputs,
    bytecode against this record, and CHECKED_HASH bytecode is used only if its source matches."""
    compileall.compile_dir(str(site), quiet=2, workers=1,
                           invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
    bytecode = {k: v for k, v in tree_manifest(site).items() if k.endswith(".pyc")}
    (site.parent / BYTECODE).write_text(json.dumps(bytecode, indent=0))


def recorded_bytecode(site: Path) -> dict[str, str]:
    """The bytecode digests recorded when the tree at `site` was built ({} before it exists)."""
    record = site.parent / BYTECODE
    return json.loads(record.read_text()) if record.exists() else {}


def installed_fingerprint(libraries: Iterable[str]) -> str:
    """Hash of the installed bytes of `libraries` and of the test runner's distributions."""
    digest = hashlib.sha256()
    for name in sorted(set(libraries) | set(RUNNER_DISTRIBUTIONS)):
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        for entry in sorted(dist.files or (), key=str):
            path = Path(dist.locate_file(entry))
            if "__pycache__" in path.parts or not path.is_file():
                continue
            digest.update(f"{name}/{entry}\0{file_digest(path)}\n".encode())
    return digest.hexdigest()


@contextlib.contextmanager
def installed_unchanged(libraries: Iterable[str], what: str) -> Iterator[None]:
    """Fail loudly if the installed libraries (or the runner) changed while `what` ran."""
    libraries = tuple(libraries)
    before = installed_fingerprint(libraries)
    yield
    if installed_fingerprint(libraries) != before:
        raise TamperedError(f"the installed libraries changed during {what}: the sandbox was breached; "
                            f"reinstall {', '.join(sorted(libraries))} and report this")


def make_read_only(root: Path) -> None:
    """Files 0444 and folders 0555: readable by the sandbox's unprivileged user, writable by none."""
    for path in sorted(root.rglob("*"), reverse=True):
        path.chmod(0o555 if path.is_dir() else 0o444)
    root.chmod(0o555)


def remove_tree(root: Path) -> None:
    """Delete a read-only tree."""
    for path in [root, *root.rglob("*")]:
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)
    shutil.rmtree(root, ignore_errors=True)
