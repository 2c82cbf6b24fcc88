"""The sandbox every untrusted test runs in (spec 2.4).

One subprocess per run, in its own session/process group and temporary folder, with rlimits on
CPU, address space, file size, open files (and processes), a wall-clock timeout that kills the
whole group, an allow-listed environment (API keys never reach it) and the Hypothesis database off.
Isolation levels, best first (the level used is stored with every run):

- `namespaces` (root): `unshare --net --pid --mount`; the overlay is bind-mounted read-only into
  the run folder and the test runs as user `nobody`, so it can write only into its run folder;
  no network at all (a fresh namespace has no usable interface, loopback included); when the
  namespace's first process dies the kernel kills every process in it.
- `user-namespaces` (unprivileged, where the kernel allows): the same with `--user --map-root-user`
  and without the user switch.
- `process-group` (fallback): process group + rlimits, a `sitecustomize` that makes every socket
  connection raise, and the overlay's read-only file modes. Weaker: documented, and reported.
"""

from __future__ import annotations

import ctypes
import functools
import logging
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from proceedings.core.errors import ProceedingsError
from proceedings.pbtbench.overlay import Overlay

log = logging.getLogger(__name__)

LEVELS = ("namespaces", "user-namespaces", "process-group")
NOBODY = 65534
_PR_SET_PDEATHSIG = 1
ENV_ALLOW = ("PATH", "LANG", "LC_ALL", "TZ")
SCORING_PHASES = "explicit,generate,target"  # shrinking costs time and never changes a verdict
FEEDBACK_PHASES = "explicit,generate,target,shrink"  # the agent's own runs show minimal examples
_HERE = Path(__file__).parent
_LAUNCH = ('src="$1"; dst="$2"; uid="$3"; shift 3; '
           'if [ -n "$src" ]; then mount --bind -o ro "$src" "$dst" || exit 97; fi; '
           'if [ "$uid" = keep ]; then exec "$@"; fi; '
           'exec setpriv --reuid="$uid" --regid="$uid" --clear-groups --no-new-privs -- "$@"')
_SOCKET_GUARD = '''import socket
def _no_network(*args, **kwargs):
    raise OSError(101, "Network is unreachable (pbtbench sandbox)")
socket.socket.connect = _no_network
socket.socket.connect_ex = _no_network
socket.create_connection = _no_network
'''


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandboxed run."""

    wall_s: float = 60.0  # spec 2.4: 60 s per file in the small setting, 300 s in the paper's
    cpu_s: int = 60
    memory_bytes: int = 2 * 2**30
    file_bytes: int = 64 * 2**20
    open_files: int = 256
    processes: int = 256  # enforced for the `nobody` user of the namespaces level


@dataclass
class RunOutcome:
    returncode: int | None
    timed_out: bool
    wall_s: float
    stdout: str
    stderr: str
    level: str
    outputs: dict[str, str] = field(default_factory=dict)  # files the run wrote into out/


@functools.lru_cache(maxsize=None)
def available_level() -> str:
    """The best isolation level this machine supports (probed once).

    `namespaces` also needs user `nobody` to import pytest and Hypothesis from this interpreter: a
    virtual environment inside a private folder (mode 0700, e.g. under /root or from `mktemp -d`)
    is unreadable to it, and root then falls back to `user-namespaces`.
    """
    if shutil.which("unshare"):
        if os.geteuid() == 0 and shutil.which("setpriv"):
            as_nobody = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--",
                         sys.executable, "-c", "import pytest, hypothesis"]
            if _probe(["unshare", "--net", "--pid", "--fork", "--kill-child", "--mount"] + as_nobody):
                return "namespaces"
            log.warning("user nobody cannot import pytest/hypothesis from %s; sandbox level falls back", sys.prefix)
        if _probe(["unshare", "--user", "--map-root-user", "--net", "--pid", "--fork", "--mount", "true"]):
            return "user-namespaces"
    return "process-group"


def _probe(argv: list[str]) -> bool:
    try:
        return subprocess.run(argv, capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


class Sandbox:
    """Runs commands on untrusted test files; see the module docstring for the guarantees."""

    def __init__(self, limits: Limits = Limits(), level: str = "auto", keep: bool = False):
        best = available_level()
        if level == "auto":
            level = best
        if level not in LEVELS:
            raise ProceedingsError(f"unknown sandbox level '{level}'; choose auto or one of {', '.join(LEVELS)}")
        if LEVELS.index(level) < LEVELS.index(best):
            raise ProceedingsError(f"sandbox level '{level}' is not available here (best: '{best}')")
        self.limits, self.level, self.keep = limits, level, keep
        self.last_run_dir: Path | None = None

    def run(self, command: list[str], files: dict[str, str], overlay: Overlay | None = None,
            env: dict[str, str] | None = None, import_names: tuple[str, ...] = (),
            compiled: tuple[str, ...] = ()) -> RunOutcome:
        """Run `command` (cwd = the run's tests/ folder holding `files` and the harness conftest)."""
        run_dir = Path(tempfile.mkdtemp(prefix="pbtbench-run-"))
        self.last_run_dir = run_dir
        try:
            return self._run_in(run_dir, command, files, overlay, env or {}, import_names, compiled)
        finally:
            if not self.keep:
                _remove_run_dir(run_dir)

    def _run_in(self, run_dir: Path, command: list[str], files: dict[str, str], overlay: Overlay | None,
                env: dict[str, str], import_names: tuple[str, ...], compiled: tuple[str, ...]) -> RunOutcome:
        tests, out = run_dir / "tests", run_dir / "out"
        for sub in ("home", "tmp", "storage", "lib/site-packages", "tests", "out"):
            (run_dir / sub).mkdir(parents=True)
        (tests / "conftest.py").write_text((_HERE / "harness_conftest.py").read_text())
        (tests / "pytest.ini").write_text("[pytest]\nconsole_output_style = classic\n")
        for name, text in files.items():
            (tests / name).write_text(text)
        overlay_path = self._overlay_path(run_dir, overlay)
        child_env = self._environment(run_dir, overlay_path, env, import_names, compiled)
        argv = self._launcher(run_dir, overlay) + command
        if self.level == "namespaces":
            _chown_tree(run_dir, NOBODY)
        started = time.perf_counter()
        with open(out / "stdout.txt", "wb") as stdout, open(out / "stderr.txt", "wb") as stderr:
            proc = subprocess.Popen(argv, cwd=tests, env=child_env, stdout=stdout, stderr=stderr,
                                    stdin=subprocess.DEVNULL, start_new_session=True,
                                    preexec_fn=self._apply_limits)
            timed_out = False
            try:
                proc.wait(timeout=self.limits.wall_s)
            except subprocess.TimeoutExpired:
                timed_out = True
            _kill_group(proc, timed_out)
        wall = time.perf_counter() - started
        outputs = {p.name: p.read_text(errors="replace") for p in out.iterdir()
                   if p.is_file() and p.name not in ("stdout.txt", "stderr.txt")}
        return RunOutcome(returncode=None if timed_out else proc.returncode, timed_out=timed_out, wall_s=wall,
                          stdout=_tail(out / "stdout.txt"), stderr=_tail(out / "stderr.txt"),
                          level=self.level, outputs=outputs)

    def _overlay_path(self, run_dir: Path, overlay: Overlay | None) -> str:
        if overlay is None:
            return ""
        if self.level == "process-group":
            return str(overlay.path)
        return str(run_dir / "lib" / "site-packages")

    def _launcher(self, run_dir: Path, overlay: Overlay | None) -> list[str]:
        source = str(overlay.path) if overlay is not None else ""
        target = str(run_dir / "lib" / "site-packages")
        if self.level == "namespaces":
            return ["unshare", "--net", "--pid", "--fork", "--kill-child", "--mount", "--propagation", "private",
                    "sh", "-c", _LAUNCH, "pbtbench-sandbox", source, target, str(NOBODY)]
        if self.level == "user-namespaces":
            return ["unshare", "--user", "--map-root-user", "--net", "--pid", "--fork", "--kill-child", "--mount",
                    "sh", "-c", _LAUNCH, "pbtbench-sandbox", source, target, "keep"]
        return []

    def _environment(self, run_dir: Path, overlay_path: str, env: dict[str, str],
                     import_names: tuple[str, ...], compiled: tuple[str, ...]) -> dict[str, str]:
        """An allow-list: nothing of the caller's environment (API keys included) passes unless listed."""
        child = {k: os.environ[k] for k in ENV_ALLOW if k in os.environ}
        python_path = [overlay_path] if overlay_path else []
        if self.level == "process-group":
            guard = run_dir / "lib" / "guard"
            guard.mkdir(parents=True, exist_ok=True)
            (guard / "sitecustomize.py").write_text(_SOCKET_GUARD)
            python_path.insert(0, str(guard))
        child.update({
            "HOME": str(run_dir / "home"), "TMPDIR": str(run_dir / "tmp"),
            "HYPOTHESIS_STORAGE_DIRECTORY": str(run_dir / "storage"),
            "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1",
            "PYTHONPATH": os.pathsep.join(python_path), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
            "PBTBENCH_OVERLAY": overlay_path, "PBTBENCH_IMPORTS": ",".join(import_names),
            "PBTBENCH_COMPILED": ",".join(compiled), "PBTBENCH_OUT": str(run_dir / "out"),
        })
        child.update(env)
        return child

    def _apply_limits(self) -> None:
        """preexec_fn: runs in the child just before exec."""
        _die_with_parent()
        limits = self.limits
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 5))
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
        resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if self.level == "namespaces":
            resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))


def _die_with_parent() -> None:
    """Ask the kernel to SIGKILL the launcher if the harness dies (it then takes its namespace along)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def _kill_group(proc: subprocess.Popen, timed_out: bool) -> None:
    """Kill what is left of the run's process group (with namespaces, its pid namespace dies too).

    A run that timed out gets SIGTERM and two seconds first; leftovers of a finished run get SIGKILL.
    """
    signals = (signal.SIGTERM, signal.SIGKILL) if timed_out else (signal.SIGKILL,)
    for sig in signals:
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            pass
    proc.wait()


def _remove_run_dir(run_dir: Path) -> None:
    """Delete a run folder; retry once, since a killed namespace may still be exiting."""
    for _ in range(2):
        shutil.rmtree(run_dir, ignore_errors=True)
        if not run_dir.exists():
            return
        time.sleep(0.5)


def _chown_tree(root: Path, uid: int) -> None:
    for dirpath, dirnames, filenames in os.walk(root):
        os.chown(dirpath, uid, uid)
        for name in filenames:
            os.chown(os.path.join(dirpath, name), uid, uid)


def _tail(path: Path, limit: int = 4000) -> str:
    with open(path, "rb") as handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        handle.seek(max(0, size - limit))
        return handle.read().decode("utf-8", errors="replace")


# --- pytest runs ---------------------------------------------------------------------------------

VERDICTS = ("passed", "failed", "error", "skipped", "timeout")


@dataclass
class PytestReport:
    """Per-function verdicts of one pytest run (or of its per-function fallback)."""

    verdicts: dict[str, str]  # function key -> one of VERDICTS
    returncode: int | None
    timed_out: bool
    wall_s: float
    level: str
    output: str = ""
    collection_error: bool = False


def pytest_command(targets: list[str], seed: int) -> list[str]:
    return [sys.executable, "-m", "pytest", *targets, "-q", "-p", "no:cacheprovider",
            "-p", "hypothesis.extra.pytestplugin", f"--hypothesis-seed={seed}", "--junitxml=../out/junit.xml",
            "-c", "pytest.ini", "--rootdir", ".", "-W", "ignore::DeprecationWarning"]


def function_key(nodeid: str) -> str:
    """`pbt_test.py::TestX::runTest` -> `TestX.runTest`; `pbt_test.py::test_a` -> `test_a`."""
    return ".".join(nodeid.split("::")[1:])


def parse_junit(xml_text: str, module: str) -> tuple[dict[str, str], bool]:
    """Function key -> verdict, and whether collection failed."""
    verdicts: dict[str, str] = {}
    collection_error = False
    root = ET.fromstring(xml_text)
    for case in root.iter("testcase"):
        classname, name = case.get("classname", ""), case.get("name", "")
        if classname in ("", module) and name == module or not name:
            collection_error = True
            continue
        prefix = classname[len(module) + 1:] if classname.startswith(module + ".") else ""
        key = f"{prefix}.{name}" if prefix else name
        if case.find("failure") is not None:
            verdict = "failed"
        elif case.find("error") is not None:
            verdict = "error"
        elif case.find("skipped") is not None:
            verdict = "skipped"
        else:
            verdict = "passed"
        if verdicts.get(key) != "failed":
            verdicts[key] = verdict
    return verdicts, collection_error


def run_pytest(sandbox: Sandbox, test_name: str, code: str, overlay: Overlay | None, seed: int,
               env: dict[str, str], import_names: tuple[str, ...], compiled: tuple[str, ...] = (),
               phases: str = SCORING_PHASES, exclude: frozenset[str] = frozenset(),
               extra_files: dict[str, str] | None = None) -> PytestReport:
    """Run one test file; if the run times out or dies, re-run each function alone (spec 2.4)."""
    files = {test_name: code, **(extra_files or {})}
    run_env = {**env, "PBTBENCH_PHASES": phases}
    module = Path(test_name).stem
    targets = [test_name] + [f"--deselect={test_name}::{k.replace('.', '::')}" for k in sorted(exclude)]
    outcome = sandbox.run(pytest_command(targets, seed), files, overlay, run_env, import_names, compiled)
    junit = outcome.outputs.get("junit.xml")
    if junit and not outcome.timed_out:
        verdicts, collection_error = parse_junit(junit, module)
        return PytestReport(verdicts, outcome.returncode, False, outcome.wall_s, outcome.level,
                            (outcome.stdout + outcome.stderr)[-4000:], collection_error)
    keys = collect_functions(sandbox, test_name, files, overlay, run_env, import_names, compiled)
    verdicts, wall = {}, outcome.wall_s
    for key in keys:
        if key in exclude:
            continue
        alone = sandbox.run(pytest_command([f"{test_name}::{key.replace('.', '::')}"], seed), files, overlay,
                            run_env, import_names, compiled)
        wall += alone.wall_s
        xml = alone.outputs.get("junit.xml")
        verdicts[key] = ("timeout" if alone.timed_out or not xml
                         else parse_junit(xml, module)[0].get(key, "error"))
    return PytestReport(verdicts, outcome.returncode, outcome.timed_out, wall, outcome.level,
                        (outcome.stdout + outcome.stderr)[-4000:], collection_error=not keys)


def collect_functions(sandbox: Sandbox, test_name: str, files: dict[str, str], overlay: Overlay | None,
                      env: dict[str, str], import_names: tuple[str, ...], compiled: tuple[str, ...]) -> list[str]:
    command = [sys.executable, "-m", "pytest", test_name, "--collect-only", "-q", "-p", "no:cacheprovider",
               "-p", "hypothesis.extra.pytestplugin", "-c", "pytest.ini", "--rootdir", "."]
    outcome = sandbox.run(command, files, overlay, env, import_names, compiled)
    pattern = re.compile(rf"^{re.escape(test_name)}::\S+", re.M)
    return [function_key(m.group(0)) for m in pattern.finditer(outcome.stdout)]
