"""The sandbox guarantees (spec 2.4, issue 16): isolation of files, a non-root uid, no network,
timeouts kill children, memory limit, allow-listed environment, no Hypothesis database."""

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from proceedings.core.errors import ProceedingsError
from proceedings.pbtbench.problem import Benchmark
from proceedings.pbtbench.pytest_run import pytest_command, run_pytest
from proceedings.pbtbench.sandbox import Limits, Sandbox, available_level, remove_orphaned_run_dirs, target_for

ISOLATED = available_level() in ("namespaces", "user-namespaces")
needs_isolation = pytest.mark.skipif(not ISOLATED, reason="no namespaces on this machine")

GUARANTEES = '''
import os, socket, pytest
from hypothesis import given, strategies as st

def test_runs_as_a_non_root_user():
    assert os.getuid() != 0 and os.geteuid() != 0 and os.getgid() != 0
    with open(os.path.join(os.environ["PBTBENCH_OUT"], "owner.txt"), "w") as handle:
        handle.write("written inside")

def test_no_network_even_to_a_loopback_listener_outside():
    with pytest.raises(OSError, match="unreachable"):
        socket.create_connection(("127.0.0.1", PORT), timeout=2)

def test_a_4_gib_allocation_fails():
    with pytest.raises(MemoryError):
        bytearray(4 * 2**30)

def test_no_api_key_arrives():
    assert "OPENAI_API_KEY" not in os.environ

@given(st.integers())
def test_fails_so_hypothesis_would_save_an_example(x):
    assert x < 5
'''


@needs_isolation
def test_an_isolated_run_is_non_root_offline_memory_bound_keyless_and_keeps_no_database(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    sandbox = Sandbox(Limits(wall_s=30, cpu_s=30), keep=True)
    try:
        code = GUARANTEES.replace("PORT", str(listener.getsockname()[1]))
        report = run_pytest(sandbox, "pbt_test.py", code, None, 0)
        owner = (sandbox.last_run_dir / "work" / "out" / "owner.txt").stat().st_uid
        assert not list(sandbox.last_run_dir.rglob("examples"))
    finally:
        listener.close()
        import shutil

        shutil.rmtree(sandbox.last_run_dir, ignore_errors=True)
    assert report.verdicts == {"test_runs_as_a_non_root_user": "passed",
                               "test_no_network_even_to_a_loopback_listener_outside": "passed",
                               "test_a_4_gib_allocation_fails": "passed", "test_no_api_key_arrives": "passed",
                               "test_fails_so_hypothesis_would_save_an_example": "failed"}, report.output
    assert owner != 0  # the host uid of the file the test wrote: non-root outside every namespace too
    assert os.environ["OPENAI_API_KEY"] == "sk-secret"


def test_the_unisolated_level_runs_nothing_unless_asked_for_unsafely():
    with pytest.raises(ProceedingsError, match="--unsafe-no-sandbox"):
        Sandbox(level="process-group")
    code = ("import socket, pytest\n"
            "def test_connect():\n"
            "    with pytest.raises(OSError, match='unreachable'):\n"
            "        socket.create_connection(('127.0.0.1', 9), timeout=2)\n")
    report = run_pytest(Sandbox(level="process-group", unsafe=True), "pbt_test.py", code, None, 0)
    assert report.verdicts == {"test_connect": "passed"} and report.level == "process-group"


def _holding(tag):
    """Pids of the processes whose command line holds `tag`."""
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if tag in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"):
                pids.append(int(pid))
        except OSError:
            continue
    return pids


def _alive(tag):
    return bool(_holding(tag))


HARNESS = r"""
import sys
from proceedings.pbtbench.sandbox import Limits, Sandbox, available_level
from proceedings.pbtbench.trigger import run_all

available_level()  # probed once here; the forked workers inherit the answer

RUN = ("import subprocess, time\n"
       "subprocess.Popen(['sh', '-c', 'sleep 300', 'TAG-grandchild'], start_new_session=True)\n"
       "time.sleep(300)  # TAG-child")

def sandboxed(i):
    return Sandbox(Limits(wall_s=300, cpu_s=300), unsafe=True).run(["-c", RUN], {}).returncode

print(run_all(sandboxed, [0, 1], jobs=2))
"""


def test_killing_the_harness_kills_its_workers_and_their_sandboxed_runs(tmp_path):
    tag = f"pbtbench-orphan-{uuid.uuid4().hex}"
    script = tmp_path / "harness.py"
    script.write_text(HARNESS.replace("TAG", tag))
    temp = tmp_path / "tmp"
    temp.mkdir()
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              env={**os.environ, "TMPDIR": str(temp)})
    try:
        deadline = time.monotonic() + 90
        while len(_holding(f"{tag}-grandchild")) < 2:  # both workers' runs started their own child
            assert parent.poll() is None, parent.stderr.read().decode()
            assert time.monotonic() < deadline, "the sandboxed runs never started"
            time.sleep(0.2)
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + 15
        while _alive(tag) and time.monotonic() < deadline:
            time.sleep(0.2)
        survivors = _holding(tag)
        assert not survivors, f"{len(survivors)} processes outlived the killed harness"
        assert len(list(temp.glob("pbtbench-run-*"))) == 2  # a killed harness runs no cleanup
        removed, deadline = 0, time.monotonic() + 15
        while removed < 2 and time.monotonic() < deadline:  # the next one removes them once the workers are gone
            removed += remove_orphaned_run_dirs(temp)
            time.sleep(0.1)
        assert removed == 2 and not list(temp.iterdir())
    finally:
        if parent.poll() is None:
            parent.kill()
        for pid in _holding(tag):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_only_run_folders_of_processes_that_are_gone_are_removed(tmp_path):
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    orphan, live = tmp_path / f"pbtbench-run-{gone.pid}-abc_12", tmp_path / f"pbtbench-run-{os.getpid()}-abc_12"
    unowned, other = tmp_path / "pbtbench-run-abc_12", tmp_path / f"other-run-{gone.pid}-abc_12"
    for folder in (orphan, live, unowned, other):
        (folder / "work").mkdir(parents=True)
    assert remove_orphaned_run_dirs(tmp_path) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in (live, unowned, other))


def test_a_finished_run_leaves_no_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    sandbox = Sandbox(unsafe=True, level="process-group")
    assert sandbox.run(["-c", "print('ok')"], {}).returncode == 0
    assert sandbox.last_run_dir.name.startswith(f"pbtbench-run-{os.getpid()}-") and not list(tmp_path.iterdir())


@pytest.mark.slow
@needs_isolation
def test_an_infinite_loop_is_killed_at_the_timeout_with_its_children():
    tag = f"pbtbench-child-{uuid.uuid4().hex}"
    code = ("import subprocess, sys\n"
            "def test_spin():\n"
            f"    subprocess.Popen(['sh', '-c', 'sleep 600', '{tag}'], start_new_session=True)\n"
            "    while True:\n"
            "        pass\n")
    started = time.perf_counter()
    outcome = Sandbox(Limits(wall_s=1.5, cpu_s=30)).run(pytest_command(["pbt_test.py"], 0), {"pbt_test.py": code})
    assert outcome.timed_out and outcome.returncode is None
    assert time.perf_counter() - started < 30  # 1.5 s limit + 2 s grace, with room for a loaded machine
    assert not _alive(tag)


@pytest.mark.slow
def test_the_import_guard_refuses_an_active_c_accelerator():
    problem = Benchmark.load()["msgpack-roundtrip"]
    target = target_for(problem)
    unswitched = target.__class__(target.overlay, target.runtime, (), target.import_names, target.compiled)
    outcome = Sandbox().run(pytest_command(["env_test.py"], 0), {"env_test.py": "def test_x():\n    pass\n"},
                            unswitched)
    assert outcome.returncode == 4 and "msgpack._cmsgpack" in outcome.stderr
    fixed = Sandbox().run(pytest_command(["env_test.py"], 0), {"env_test.py": "def test_x():\n    pass\n"}, target)
    assert fixed.returncode == 0
