"""`make setup` warms the first-use caches, and doing it again changes nothing."""

import os
import subprocess
import sys
from pathlib import Path

from proceedings.core.models import cache_root

ROOT = Path(__file__).parents[2]


def snapshot(*folders: Path) -> dict[str, tuple[int, int]]:
    """(size, mtime) of every file under the folders."""
    found = {}
    for folder in folders:
        for path in folder.rglob("*") if folder.exists() else ():
            if path.is_file():
                stat = path.stat()
                found[str(path)] = (stat.st_size, stat.st_mtime_ns)
    return found


def warm_up() -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "proceedings", "warm-up"], capture_output=True, text=True, env=os.environ)
    assert done.returncode == 0, done.stderr
    return done


def test_make_setup_runs_the_warm_up_and_a_second_warm_up_changes_nothing():
    plan = subprocess.run(["make", "-n", "setup"], cwd=ROOT, capture_output=True, text=True)
    assert "proceedings warm-up" in plan.stdout
    caches = (cache_root() / "models", Path.home() / ".cache" / "YoWASP")
    before = snapshot(*caches)
    done = warm_up()  # under `make test`, `make setup` has warmed everything: this is the second warm-up
    if snapshot(*caches) != before:  # cold caches (pytest without `make setup`): that run filled them
        before = snapshot(*caches)
        done = warm_up()
    assert "smollm2-135m ready" in done.stdout
    assert snapshot(*caches) == before and before
