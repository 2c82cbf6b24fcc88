"""The sandbox every untrusted test runs in (spec 2.4, issue 16).

One subprocess per run, in its own session and run folder, with rlimits on CPU, address space,
file size, open files and processes, a wall-clock timeout that kills the whole group, an
allow-listed environment (API keys never reach it) and the Hypothesis database off. The overlay
and the test runtime are verified by content hash before every run and again after it.
Isolation levels, best first (the level used is stored with every run):

- `namespaces` (root) and `user-namespaces` (unprivileged): the test sees only its run folder,
  the overlay and a read-only interpreter with pytest/Hypothesis (isolation.py), runs as a
  non-root uid, has no network; when the namespace's first process dies every process in it dies.
- `process-group`: process group, rlimits and a `sitecustomize` socket guard only. It cannot hide
  files from the test, so it runs nothing unless the caller passes `unsafe=True`
  (`--unsafe-no-sandbox`): it exists for machines without namespaces, for trusted files.
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
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from proceedings.core.errors import ProceedingsError
from proceedings.pbtbench import isolation
from proceedings.pbtbench.overlay import Overlay, build_overlay, compiled_modules
from proceedings.pbtbench.problem import Problem
from proceedings.pbtbench.runtime import Runtime, build_runtime

log = logging.getLogger(__name__)

LEVELS = ("namespaces", "user-namespaces", "process-group")
ISOLATED = LEVELS[:2]
_PR_SET_PDEATHSIG = 1
ENV_ALLOW = ("LANG", "LC_ALL", "TZ")
SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
SCORING_PHASES = "explicit,generate,target"  # shrinking costs time and never changes a verdict
FEEDBACK_PHASES = "explicit,generate,target,shrink"  # the agent's own runs show minimal examples
_HERE = Path(__file__).parent
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
    processes: int = 256  # per user: enforced for the unprivileged uid of the isolated levels


@dataclass(frozen=True)
class Target:
    """What a run imports: the overlay (None: no library), the runtime, the problem's environment
    switches (e.g. MSGPACK_PUREPYTHON=1) and the import guard's names."""

    overlay: Overlay | None
    runtime: Runtime
    env: tuple[tuple[str, str], ...] = ()
    import_names: tuple[str, ...] = ()
    compiled: tuple[str, ...] = ()


def target_for(problem: Problem, bug_ids: tuple[str, ...] = ()) -> Target:
    """The problem's library with `bug_ids` applied, as the sandbox serves it."""
    return Target(build_overlay(problem, bug_ids), build_runtime(problem.library), tuple(sorted(problem.env.items())),
                  problem.import_names, compiled_modules(problem))


def bare_target() -> Target:
    """No library under test: the runner alone."""
    return Target(None, build_runtime())


@dataclass
class RunOutcome:
    returncode: int | None
    timed_out: bool
    wall_s: float
    stdout: str
    stderr: str
    level: str
    outputs: dict[str, str] = field(default_factory=dict)  # files the run wrote into out/
    owner_uid: int | None = None  # host uid owning the files the test wrote (None: it wrote none)


@functools.lru_cache(maxsize=None)
def available_level() -> str:
    """The best isolation level this machine supports (probed once, with a real isolated import)."""
    level = "namespaces" if os.geteuid() == 0 else "user-namespaces"
    if shutil.which("unshare") and shutil.which("setpriv") and _probe(level):
        return level
    log.warning("namespaces are unavailable here: untrusted tests cannot be isolated")
    return "process-group"


def _probe(level: str) -> bool:
    run_dir = new_run_dir("probe")
    try:
        (run_dir / "root").mkdir()
        (run_dir / "work" / "tests").mkdir(parents=True)
        if level == "namespaces":
            _chown_tree(run_dir / "work", isolation.NOBODY)
        runtime = build_runtime()
        argv = isolation.launcher(level, run_dir, runtime.path, None) + [
            isolation.host_interpreter().executable, "-c", "import pytest, hypothesis"]
        env = {"PATH": SANDBOX_PATH, "PYTHONPATH": isolation.RUNTIME}
        return subprocess.run(argv, capture_output=True, timeout=30, env=env).returncode == 0
    except (OSError, subprocess.TimeoutExpired, ProceedingsError):
        return False
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)


class Sandbox:
    """Runs Python on untrusted test files; see the module docstring for the guarantees."""

    def __init__(self, limits: Limits = Limits(), level: str = "auto", keep: bool = False, unsafe: bool = False):
        best = available_level()
        level = best if level == "auto" else level
        if level not in LEVELS:
            raise ProceedingsError(f"unknown sandbox level '{level}'; choose auto or one of {', '.join(LEVELS)}")
        if level in ISOLATED and level != best:
            raise ProceedingsError(f"sandbox level '{level}' is not available here (best: '{best}')")
        if level not in ISOLATED and not unsafe:
            raise ProceedingsError("no isolating sandbox is available (needs `unshare` and `setpriv` with mount "
                                   "namespaces); untrusted tests would see every file. Pass --unsafe-no-sandbox "
                                   "only for files you trust")
        if level == "process-group":
            log.warning("sandbox level process-group: tests run without file isolation (unsafe)")
        _remove_orphans_once()
        self.limits, self.level, self.keep = limits, level, keep
        self.last_run_dir: Path | None = None

    def run(self, python_args: list[str], files: dict[str, str], target: Target | None = None,
            env: dict[str, str] | None = None) -> RunOutcome:
        """Run the interpreter with `python_args` (cwd = the run's tests/ folder holding `files`).

        The overlay and the runtime are verified by content hash before the run and after it.
        """
        target = target or bare_target()
        trees = [t for t in (target.overlay, target.runtime) if t is not None]
        run_dir = new_run_dir("run")
        self.last_run_dir = run_dir
        try:
            for tree in trees:
                tree.verify()
            outcome = self._run_in(run_dir, python_args, files, target, env or {})
            for tree in trees:
                tree.verify()
            return outcome
        finally:
            if not self.keep:
                _remove_run_dir(run_dir)

    def _run_in(self, run_dir: Path, python_args: list[str], files: dict[str, str], target: Target,
                env: dict[str, str]) -> RunOutcome:
        work = run_dir / "work"
        tests, out = work / "tests", work / "out"
        for sub in ("home", "tmp", "storage", "tests", "out"):
            (work / sub).mkdir(parents=True)
        (run_dir / "root").mkdir()
        (tests / "conftest.py").write_text((_HERE / "harness_conftest.py").read_text())
        (tests / "pytest.ini").write_text("[pytest]\nconsole_output_style = classic\n")
        for name, text in files.items():
            (tests / name).write_text(text)
        if self.level == "namespaces":
            _chown_tree(work, isolation.NOBODY)
        argv, child_env = self._command(run_dir, python_args, target, env)
        started = time.perf_counter()
        with open(run_dir / "stdout.txt", "wb") as stdout, open(run_dir / "stderr.txt", "wb") as stderr:
            proc = subprocess.Popen(argv, cwd=tests, env=child_env, stdout=stdout, stderr=stderr,
                                    stdin=subprocess.DEVNULL, start_new_session=True,
                                    preexec_fn=functools.partial(self._apply_limits, os.getpid()))
            timed_out = False
            try:
                proc.wait(timeout=self.limits.wall_s)
            except subprocess.TimeoutExpired:
                timed_out = True
            finally:  # also when the harness is interrupted: nothing of the run outlives it
                _kill_group(proc, timed_out)
        wall = time.perf_counter() - started
        written = [p for p in out.iterdir() if p.is_file()]
        return RunOutcome(returncode=None if timed_out else proc.returncode, timed_out=timed_out, wall_s=wall,
                          stdout=_tail(run_dir / "stdout.txt"), stderr=_tail(run_dir / "stderr.txt"),
                          level=self.level, outputs={p.name: p.read_text(errors="replace") for p in written},
                          owner_uid=written[0].stat().st_uid if written else None)

    def _command(self, run_dir: Path, python_args: list[str], target: Target,
                 env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
        """(argv, environment): an allow-list, so nothing of the caller's (API keys included) passes."""
        work, overlay = run_dir / "work", target.overlay
        if self.level in ISOLATED:
            argv = isolation.launcher(self.level, run_dir, target.runtime.path, overlay.path if overlay else None)
            argv.append(isolation.host_interpreter().executable)
            seen_work, seen_overlay = isolation.RUN, isolation.OVERLAY if overlay else ""
            python_path = ([seen_overlay] if overlay else []) + [isolation.RUNTIME]
        else:
            argv = [sys.executable]
            seen_work, seen_overlay = str(work), str(overlay.path) if overlay else ""
            guard = run_dir / "guard"
            guard.mkdir()
            (guard / "sitecustomize.py").write_text(_SOCKET_GUARD)
            python_path = [str(guard)] + ([seen_overlay] if overlay else [])
        child = {k: os.environ[k] for k in ENV_ALLOW if k in os.environ}
        child.update({
            "PATH": SANDBOX_PATH, "HOME": f"{seen_work}/home", "TMPDIR": f"{seen_work}/tmp",
            "HYPOTHESIS_STORAGE_DIRECTORY": f"{seen_work}/storage", "PBTBENCH_OUT": f"{seen_work}/out",
            "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1",
            "PYTHONPATH": os.pathsep.join(python_path), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
            "PBTBENCH_OVERLAY": seen_overlay, "PBTBENCH_IMPORTS": ",".join(target.import_names),
            "PBTBENCH_COMPILED": ",".join(target.compiled),
        })
        child.update(dict(target.env))
        child.update(env)
        return argv + python_args, child

    def _apply_limits(self, harness_pid: int) -> None:
        """preexec_fn: runs in the child just before exec."""
        die_with_parent(harness_pid)
        limits = self.limits
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 5))
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
        resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if self.level in ISOLATED:
            resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))


def die_with_parent(parent: int | None = None) -> None:
    """Ask the kernel to SIGKILL this process when its parent dies; exit at once if the parent
    (pid `parent`) is already gone. A launcher then takes its namespace along, a worker its runs."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass
    if parent is not None and os.getppid() != parent:
        os._exit(1)


def worker_pool(jobs: int) -> ProcessPoolExecutor:
    """A process pool whose workers (and so their sandboxed runs) die when the caller dies."""
    return ProcessPoolExecutor(max_workers=jobs, initializer=die_with_parent, initargs=(os.getpid(),))


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


def new_run_dir(kind: str) -> Path:
    """A fresh run folder in the temporary directory, named after the process that owns it
    (`pbtbench-<kind>-<pid>-<random>`), so that a later harness can tell when it is orphaned."""
    return Path(tempfile.mkdtemp(prefix=f"pbtbench-{kind}-{os.getpid()}-"))


def remove_orphaned_run_dirs(root: Path | None = None) -> int:
    """Delete the run folders under `root` (the temporary directory) whose owning process is gone;
    return how many. A harness killed by a signal it does not handle (SIGKILL, or the SIGTERM of
    `timeout`) runs no `finally`, and its workers die by the parent-death signal mid-run, so their
    folders stay behind; the next harness removes them. Folders of live processes are left alone."""
    removed = 0
    for path in Path(root or tempfile.gettempdir()).glob("pbtbench-*"):
        owner = _RUN_DIR_NAME.fullmatch(path.name)
        if owner and path.is_dir() and not _process_exists(int(owner.group(1))):
            shutil.rmtree(path, ignore_errors=True)
            removed += 1
    return removed


_RUN_DIR_NAME = re.compile(r"pbtbench-(?:run|probe)-(\d+)-\w+")


@functools.lru_cache(maxsize=None)
def _remove_orphans_once() -> None:
    count = remove_orphaned_run_dirs()
    if count:
        log.info("removed %d run folders left by killed harnesses", count)


def _process_exists(pid: int) -> bool:
    """Whether `pid` is a running process; a zombie (a killed worker nobody has reaped yet) is not."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[0] not in ("Z", "X")


def _remove_run_dir(run_dir: Path) -> None:
    """Delete a run folder; retry once, since a killed namespace may still be exiting."""
    for _ in range(2):
        shutil.rmtree(run_dir, ignore_errors=True)
        if not run_dir.exists():
            return
        time.sleep(0.5)


def _chown_tree(root: Path, uid: int) -> None:
    for dirpath, _dirnames, filenames in os.walk(root):
        os.chown(dirpath, uid, uid)
        for name in filenames:
            os.chown(os.path.join(dirpath, name), uid, uid)


def _tail(path: Path, limit: int = 4000) -> str:
    with open(path, "rb") as handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        handle.seek(max(0, size - limit))
        return handle.read().decode("utf-8", errors="replace")
