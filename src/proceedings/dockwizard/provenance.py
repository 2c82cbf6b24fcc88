"""The code a cached stage's result came from: a digest of this package's Python sources.

A resumable run keeps trained arms and judged rows on disk; keyed by their inputs alone, a change to the
judging or training code would silently reuse results computed by the old code. Every such key therefore
carries `source_digest()`: any edit to a module of `proceedings.dockwizard` starts afresh.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

PACKAGE = Path(__file__).parent


def source_digest(folder: Path = PACKAGE) -> str:
    """sha256 over the names and contents of the package's `*.py` files, in name order (16 hex digits)."""
    digest = hashlib.sha256()
    for path in sorted(folder.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]
