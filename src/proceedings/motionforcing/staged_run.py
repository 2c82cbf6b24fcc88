"""A comparison run cut into resumable pieces (issue 30: small runs in pieces of at most 20 minutes).

The run folder keeps a ledger of each stage's wall and CPU seconds summed over the pieces it took, and
every finished evaluation stage's result as JSON. Past the piece's budget
(`$PROCEEDINGS_MOTIONFORCING_MAX_MINUTES`) a piece that has finished a stage stops before the next one
with `Paused`, and the same command resumes at that stage (every piece makes progress). Rendering and
training pause inside (shards, checkpoints). Stage results are kept per source digest, so changed code
re-evaluates.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from proceedings.core.runtime import atomic_write_text, stopwatch
from proceedings.core.staging import Paused, past_deadline


def source_digest() -> str:
    """A digest of this package's source: stored stage results are reused only by the code that computed them."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


class StagedRun:
    def __init__(self, folder: Path, deadline: float | None):
        self.folder, self.deadline = folder, deadline
        self.ledger_path = folder / "ledger.json"
        self.ledger = json.loads(self.ledger_path.read_text()) if self.ledger_path.exists() else {"pieces": 0,
                                                                                                  "stages": {}}
        self.ledger["pieces"] += 1
        self.computed = False  # whether this piece has finished a stage
        self._save()

    def _save(self) -> None:
        atomic_write_text(self.ledger_path, json.dumps(self.ledger, indent=1))

    @contextmanager
    def timed(self, stage: str) -> Iterator[None]:
        """Add the block's wall and CPU seconds to the stage's ledger entry, also when it pauses."""
        try:
            with stopwatch() as t:
                yield
        finally:
            entry = self.ledger["stages"].setdefault(stage, {"wall_s": 0.0, "cpu_s": 0.0})
            entry["wall_s"], entry["cpu_s"] = round(entry["wall_s"] + t.wall_s, 2), round(entry["cpu_s"] + t.cpu_s, 2)
            self._save()

    def stage(self, name: str, compute: Callable[[], dict]) -> dict:
        """The stage's stored result, else compute it (if the budget allows) and store it."""
        path = self.folder / "stages" / f"{name.replace(':', '_')}.json"
        if path.exists():
            return json.loads(path.read_text())
        if past_deadline(self.deadline) and self.computed:
            raise Paused(f"motionforcing: time budget reached before stage '{name}'; run the same command again "
                         "to resume")
        with self.timed(name):
            value = compute()
        atomic_write_text(path, json.dumps(value))
        self.computed = True
        return value

    def totals(self) -> dict:
        """The ledger with the summed wall and CPU seconds of every stage."""
        stages = self.ledger["stages"]
        return {**self.ledger, "wall_s": round(sum(s["wall_s"] for s in stages.values()), 2),
                "cpu_s": round(sum(s["cpu_s"] for s in stages.values()), 2)}
