"""Fixtures for the PBT-Bench tests: small problem folders built from the shipped ones."""

import json
import re
import shutil
from pathlib import Path

import pytest

from proceedings.pbtbench.problem import PROBLEMS_DIR, load_problem


def subset_problem(tmp_path: Path, problem_id: str, bug_ids: list[str], admitted: bool = True):
    """A copy of a shipped problem keeping only `bug_ids`, with a lock file admitting them.

    The lock is written by hand: these tests exercise the scorer and runner, whose input is the
    set of admitted bugs; the gates themselves are tested in test_trigger.py.
    """
    target = tmp_path / problem_id
    shutil.copytree(PROBLEMS_DIR / problem_id, target)
    toml = (target / "problem.toml").read_text()
    head, *blocks = toml.split("\n[[bugs]]\n")
    kept = [b for b in blocks if re.search(r'^id = "(%s)"$' % "|".join(map(re.escape, bug_ids)), b, re.M)]
    (target / "problem.toml").write_text("\n[[bugs]]\n".join([head, *kept]))
    problem = load_problem(target)
    lock = {"bugs": {b.id: {"admitted": admitted, "patch_sha256": b.patch_sha256} for b in problem.bugs}}
    (target / "bugs.lock.json").write_text(json.dumps(lock))
    return problem


@pytest.fixture
def lru_problem(tmp_path):
    """cachetools with two bugs: a sized-cache accounting bug and a random-replacement deletion bug (L2)."""
    return subset_problem(tmp_path, "cachetools-caches", ["sized-update-evicts-self", "rr-delete-stale-index"])
