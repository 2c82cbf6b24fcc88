"""The read-only test runtime a sandboxed test imports from (issue 16, isolation).

Inside the sandbox the interpreter sees no site-packages of its own: it sees the overlay (the
library with the bugs under test) and this runtime, a content-addressed copy of pytest,
Hypothesis, their dependencies and the problem library's own dependencies, built from the
installed distributions into `<cache>/pbtbench/runtimes/<key>/site-packages`. The library under
test is never part of it (a clean copy would let a test diff the overlay against it), so a
library that the runner itself needs (e.g. sortedcontainers, packaging) cannot be a problem.
"""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
import sys
import tempfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from proceedings.core.errors import ProceedingsError
from proceedings.core.models import cache_root
from proceedings.pbtbench.integrity import (compile_bytecode, file_digest, make_read_only, recorded_bytecode,
                                            remove_tree, verify_tree)

RUNNER = ("pytest", "hypothesis")
FORMAT_VERSION = 2


@dataclass(frozen=True)
class Runtime:
    key: str
    path: Path  # .../<key>/site-packages
    distributions: tuple[str, ...]
    manifest: dict[str, str]  # sources (from the installed files) and bytecode (recorded at build)

    def verify(self) -> None:
        verify_tree(self.path, self.manifest, "the sandbox's test runtime")


def requirement_closure(names: tuple[str, ...]) -> list[metadata.Distribution]:
    """The installed distributions `names` need, transitively (markers evaluated, no extras)."""
    seen: dict[str, metadata.Distribution] = {}
    todo = list(names)
    while todo:
        name = canonicalize_name(todo.pop())
        if name in seen:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            raise ProceedingsError(f"'{name}' is needed inside the sandbox but not installed; "
                                   "run `make setup`") from None
        seen[name] = dist
        for text in dist.requires or ():
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return [seen[k] for k in sorted(seen)]


def runner_names() -> set[str]:
    return {canonicalize_name(d.metadata["Name"]) for d in requirement_closure(RUNNER)}


def check_library_outside_runner(library: str) -> None:
    """A library the runner imports would reach the sandbox as a clean copy: refuse it (spec 2.2)."""
    if canonicalize_name(library) in runner_names():
        raise ProceedingsError(f"'{library}' is part of the test runner's own closure (pytest, Hypothesis and "
                               "their dependencies); bugs cannot be injected into it")


def _files(dist: metadata.Distribution) -> dict[str, Path]:
    """Installed files of a distribution below its site-packages (scripts and caches left out)."""
    files = {}
    for entry in dist.files or ():
        parts = Path(str(entry)).parts
        if parts[0] == ".." or "__pycache__" in parts or str(entry).endswith(".pyc"):
            continue
        files[str(entry)] = Path(dist.locate_file(entry))
    return files


@functools.lru_cache(maxsize=None)
def build_runtime(library: str | None = None) -> Runtime:
    """The runtime for a problem on `library` (its dependencies, not itself), or the runner alone.

    Built once per content key; the sandbox verifies it by content hash before and after every run.
    """
    dists = requirement_closure(RUNNER + ((library,) if library else ()))
    if library:
        check_library_outside_runner(library)
        dists = [d for d in dists if canonicalize_name(d.metadata["Name"]) != canonicalize_name(library)]
    files: dict[str, Path] = {}
    for dist in dists:
        files.update(_files(dist))
    manifest = {rel: file_digest(path) for rel, path in sorted(files.items()) if path.is_file()}
    digest = hashlib.sha256(f"v{FORMAT_VERSION} py{sys.version_info[:2]}\n".encode())
    digest.update(json.dumps(manifest).encode())
    key = digest.hexdigest()[:24]
    final = cache_root() / "pbtbench" / "runtimes" / key
    if not final.exists():
        _materialise(final, files, manifest)
    manifest = {**manifest, **recorded_bytecode(final / "site-packages")}
    return Runtime(key, final / "site-packages", tuple(d.metadata["Name"] for d in dists), manifest)


def _materialise(final: Path, files: dict[str, Path], manifest: dict[str, str]) -> None:
    final.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=final.parent, prefix=".build-"))
    try:
        for relative in manifest:
            target = staging / "site-packages" / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(files[relative], target)
        compile_bytecode(staging / "site-packages")
        make_read_only(staging)
        try:
            staging.rename(final)
        except OSError:  # another process built the same runtime first: identical content
            if not final.exists():
                raise
    finally:
        if staging.exists():
            remove_tree(staging)


def warm_up() -> str:
    """Build (copy and byte-compile) the sandbox runtime of every shipped problem's library now, so
    no test pays for it; a warm cache answers in a fraction of a second."""
    from proceedings.pbtbench.problem import Benchmark

    libraries = sorted({p.library for p in Benchmark.load()})
    runtimes = {build_runtime(library).key for library in libraries}
    return f"PBT-Bench sandbox runtimes ready ({len(runtimes)} for {len(libraries)} libraries)"
