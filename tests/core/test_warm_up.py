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


def test_warm_up_starts_the_longest_measured_hook_first():
    from proceedings.cli import warm_up_jobs
    from proceedings.registry import SYSTEMS

    cost = {system.slug: system.warm_up_cpu_s for system in SYSTEMS}
    jobs = warm_up_jobs()
    assert jobs[-1] == "model" and len(jobs) > 2
    assert all(cost[job] > 0 for job in jobs[:-1]), "every hook states its measured cold-cache CPU seconds"
    assert [cost[job] for job in jobs[:-1]] == sorted((cost[job] for job in jobs[:-1]), reverse=True)


def test_a_warm_up_job_runs_with_the_configured_thread_count(monkeypatch):
    import torch

    from proceedings.cli import _warm_one

    monkeypatch.setenv("PROCEEDINGS_THREADS", "1")
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        assert "ready" in _warm_one("model")
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)
