"""The sandbox guarantees (spec 2.4): no network, timeouts kill children, memory limit, read-only
library copy, allow-listed environment, no Hypothesis database."""

import os
import socket
import time
import uuid
from pathlib import Path

import pytest

from proceedings.pbtbench.overlay import build_overlay
from proceedings.pbtbench.sandbox import Limits, Sandbox, available_level, pytest_command, run_pytest


def _run(code, overlay=None, limits=Limits(wall_s=30, cpu_s=30), level="auto", keep=False, env=None):
    sandbox = Sandbox(limits, level=level, keep=keep)
    report = run_pytest(sandbox, "pbt_test.py", code, overlay, 0, env or {}, ("cachetools",) if overlay else ())
    return report, sandbox


def test_connection_to_a_loopback_listener_outside_the_sandbox_fails():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    try:
        code = ("import socket, pytest\n"
                "def test_connect():\n"
                f"    with pytest.raises(OSError, match='unreachable'):\n"
                f"        socket.create_connection(('127.0.0.1', {port}), timeout=2)\n")
        report, _ = _run(code)
        assert report.verdicts == {"test_connect": "passed"}, report.output
    finally:
        listener.close()


@pytest.mark.skipif(available_level() == "process-group", reason="needs namespaces")
def test_the_fallback_level_also_blocks_the_network():
    code = ("import socket, pytest\n"
            "def test_connect():\n"
            "    with pytest.raises(OSError, match='unreachable'):\n"
            "        socket.create_connection(('127.0.0.1', 9), timeout=2)\n")
    report, _ = _run(code, level="process-group")
    assert report.verdicts == {"test_connect": "passed"} and report.level == "process-group"


def _alive(tag):
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if tag in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"):
                return True
        except OSError:
            continue
    return False


def test_an_infinite_loop_is_killed_at_the_timeout_with_its_children():
    tag = f"pbtbench-child-{uuid.uuid4().hex}"
    code = ("import subprocess, sys\n"
            "def test_spin():\n"
            f"    subprocess.Popen(['sh', '-c', 'sleep 600', '{tag}'], start_new_session=True)\n"
            "    while True:\n"
            "        pass\n")
    started = time.perf_counter()
    outcome = Sandbox(Limits(wall_s=3, cpu_s=30)).run(pytest_command(["pbt_test.py"], 0), {"pbt_test.py": code})
    assert outcome.timed_out and outcome.returncode is None
    assert time.perf_counter() - started < 20  # 3 s limit + 2 s grace, with room for a loaded machine
    assert not _alive(tag)


def test_a_4_gib_allocation_fails_inside_the_sandbox():
    code = ("import pytest\n"
            "def test_allocate():\n"
            "    with pytest.raises(MemoryError):\n"
            "        bytearray(4 * 2**30)\n")
    report, _ = _run(code)
    assert report.verdicts == {"test_allocate": "passed"}, report.output


def test_the_library_copy_cannot_be_written_and_api_keys_never_arrive(lru_problem, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    overlay = build_overlay(lru_problem, ("sized-update-evicts-self",))
    code = ("import os, pytest, cachetools\n"
            "def test_write_library():\n"
            "    with pytest.raises(OSError):\n"
            "        open(cachetools.__file__, 'a').write('#')\n"
            "def test_environment():\n"
            "    assert 'OPENAI_API_KEY' not in os.environ\n"
            "    assert '/site-packages/' in cachetools.__file__\n")
    report, _ = _run(code, overlay=overlay)
    assert report.verdicts == {"test_write_library": "passed", "test_environment": "passed"}, report.output
    assert os.environ["OPENAI_API_KEY"] == "sk-secret"


def test_the_hypothesis_database_is_off():
    code = ("from hypothesis import given, strategies as st\n"
            "@given(st.integers())\n"
            "def test_fails(x):\n"
            "    assert x < 5\n")
    report, sandbox = _run(code, keep=True)
    try:
        assert report.verdicts == {"test_fails": "failed"}
        assert not list(sandbox.last_run_dir.rglob("examples"))
    finally:
        import shutil

        shutil.rmtree(sandbox.last_run_dir, ignore_errors=True)


def test_the_import_guard_refuses_an_active_c_accelerator():
    from proceedings.pbtbench.problem import Benchmark
    from proceedings.pbtbench.trigger import compiled_modules

    problem = Benchmark.load()["msgpack-roundtrip"]
    outcome = Sandbox().run(pytest_command(["env_test.py"], 0), {"env_test.py": "def test_x():\n    pass\n"},
                            build_overlay(problem, ()), {}, problem.import_names, compiled_modules(problem))
    assert outcome.returncode == 4 and "msgpack._cmsgpack" in outcome.stderr
    fixed = Sandbox().run(pytest_command(["env_test.py"], 0), {"env_test.py": "def test_x():\n    pass\n"},
                          build_overlay(problem, ()), problem.env, problem.import_names, compiled_modules(problem))
    assert fixed.returncode == 0
