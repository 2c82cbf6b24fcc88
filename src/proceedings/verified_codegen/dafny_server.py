"""Warm Dafny processes: one long-lived `DafnyServer.exe` verifies, one test host compiles and runs.

Each `dafny` process pays Mono's start-up and JIT: ~2.4 s CPU for a small file, most of a run's cost.
Inside a workflow both kinds of checker invocation therefore go to a process started once:
- verification: `DafnyServer.exe` (FACTS.md "Proof checkers"), ~0.3 s CPU a file. Protocol: the line
  `verify`, the base64 of `{"args": [...], "filename": ..., "source": ..., "sourceIsFile": false}`, the
  line `[[DAFNY-CLIENT: EOM]]`; the reply ends with `[[DAFNY-SERVER: EOM]]` and says "Verification
  completed successfully!" even when a resolution error was printed, so the verdict is read from the
  error lines (`DafnyChecker.judge`).
- test runs (`/compile:4 /noVerify`): DafnyServer cannot compile, so a small C# host (`HOST_SOURCE`,
  built once with `mcs`, which the `dafny` package depends on) calls `Dafny.exe`'s own entry point
  in-process for each request, with the request's arguments, and returns what it printed and its exit
  code: the same pipeline and exit codes as a fresh `dafny` process (2 resolution error, 3 the program
  threw), without Mono's start-up. Without it a test run is a fresh Mono process (~3x a verification's
  wall), which J, which never tests, does not pay (round 9's audit of check (2)).
A (re)started process first answers a warm-up request, charged to no check; an answer that does not
come within the wall limit kills the process group (the next request starts a new one). The final
re-check and the differential check never use these: they are fresh `dafny` processes.
"""

from __future__ import annotations

import atexit
import base64
import hashlib
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from proceedings.core.errors import ProceedingsError

CLIENT_EOM, SERVER_EOM = "[[DAFNY-CLIENT: EOM]]", "[[DAFNY-SERVER: EOM]]"
WARM_UP = "lemma WarmUp(x: int)\n    ensures x + 0 == x\n{\n}\n"  # verified once per server start, charged to nothing
WARM_UP_PROGRAM = 'method Main() {\n  print "warm", "\\n";\n}\n'  # compiled and run once per host start
HOST_EOM = re.compile(r"^\[\[VCG-TEST-HOST: EOM (-?\d+) ([A-Za-z0-9+/=]*)\]\]$", re.M)
HOST_SOURCE = """\
// vcg test host: runs Dafny.exe's entry point in-process once per request line (tab-separated arguments)
using System; using System.IO; using System.Reflection; using System.Text;
class VcgTestHost {
  static void Main(string[] argv) {
    MethodInfo dafny = Assembly.LoadFrom(argv[0]).EntryPoint;
    TextWriter channel = Console.Out;
    string line;
    while ((line = Console.In.ReadLine()) != null) {
      var printed = new StringWriter();
      Console.SetOut(printed); Console.SetError(printed);
      int rc;
      try { rc = (int) dafny.Invoke(null, new object[] { line.Split('\\t') }); }
      catch (Exception e) { printed.WriteLine("vcg test host: " + e); rc = 99; }
      Console.SetOut(channel);
      channel.WriteLine("[[VCG-TEST-HOST: EOM " + rc + " "
                        + Convert.ToBase64String(Encoding.UTF8.GetBytes(printed.ToString())) + "]]");
      channel.Flush();
    }
  }
}
"""


def dafny_library(dafny: str, name: str) -> str:
    """`name` (DafnyServer.exe, Dafny.exe) beside the `Dafny.exe` that the `dafny` launcher runs."""
    exe = os.path.join(os.path.dirname(os.path.realpath(dafny)), "..", "lib", "dafny", name)
    exe = exe if os.path.isfile(exe) else f"/usr/lib/dafny/{name}"
    if not os.path.isfile(exe):
        raise ProceedingsError(f"{name} not found beside {dafny} (the Debian `dafny` package ships it); "
                               f"run without warm Dafny processes")
    return exe


def mono() -> str:
    found = shutil.which("cli") or shutil.which("mono")
    if not found:
        raise ProceedingsError("mono not found: install it with `apt-get install -y --no-install-recommends dafny`")
    return found


def server_command(dafny: str) -> list[str]:
    """`cli DafnyServer.exe`."""
    return [mono(), dafny_library(dafny, "DafnyServer.exe")]


def test_host_command(dafny: str) -> list[str]:
    """`cli vcg_test_host.exe Dafny.exe`; the host is built from `HOST_SOURCE` by `mcs` once, into the cache."""
    from proceedings.core.models import cache_root

    digest = hashlib.sha256(HOST_SOURCE.encode()).hexdigest()[:12]
    exe = cache_root() / "verified_codegen" / f"vcg_test_host-{digest}.exe"
    if not exe.is_file():
        mcs = shutil.which("mcs")
        if not mcs:
            raise ProceedingsError("mcs not found: install it with `apt-get install -y --no-install-recommends mono-mcs`")
        exe.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="vcg-host-", dir=exe.parent) as tmp:  # built aside, then renamed
            source = Path(tmp) / "vcg_test_host.cs"
            source.write_text(HOST_SOURCE)
            built = subprocess.run([mcs, "-out:" + str(Path(tmp) / exe.name), str(source)], capture_output=True,
                                   text=True)
            if built.returncode != 0:
                raise ProceedingsError(f"mcs could not build the Dafny test host: {built.stdout.strip()[-300:]}")
            os.replace(Path(tmp) / exe.name, exe)
    return [mono(), str(exe), dafny_library(dafny, "Dafny.exe")]


def tree_cpu_s(root: int) -> float:
    """CPU seconds (user + system) used so far by process `root` and its live descendants (Z3), plus what
    they have reaped, read from /proc; a long-lived child's CPU is not in this process's RUSAGE_CHILDREN."""
    parent, ticks = {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                text = stat.read()
        except OSError:  # the process ended between listing and reading
            continue
        fields = text[text.rindex(")") + 2:].split()  # from field 3 (state): ppid, ..., utime stime cutime cstime
        parent[int(entry)], ticks[int(entry)] = int(fields[1]), sum(int(f) for f in fields[11:15])
    tree, frontier = {root}, [root]
    while frontier:
        children = [pid for pid, ppid in parent.items() if ppid in frontier and pid not in tree]
        tree.update(children)
        frontier = children
    return sum(ticks.get(pid, 0) for pid in tree) / os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Answer:
    output: str
    seconds: float  # wall, request sent to reply's end
    cpu_s: float  # CPU of the process tree over the same span
    returncode: int = 0  # the test host's: Dafny's exit code for the request


class WarmProcess:
    """One long-lived process answering one request at a time: `request` writes text to its stdin and
    returns the lines up to the first that holds `self.end` (None on timeout, or if the process died)."""

    end = ""

    def __init__(self, command: list[str]):
        self.command = command
        self.proc: subprocess.Popen | None = None
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.starts = 0

    def _start(self) -> None:
        self.proc = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, start_new_session=True)
        self.lines = queue.Queue()
        threading.Thread(target=self._pump, args=(self.proc, self.lines), daemon=True).start()
        if not self.starts:
            atexit.register(self.close)
        self.starts += 1

    @staticmethod
    def _pump(proc: subprocess.Popen, lines: queue.Queue) -> None:
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    def request(self, text: str, warm_up: str, timeout_s: float) -> Answer | None:
        """`text`'s answer; a (re)started process first answers `warm_up`, so that its start-up and JIT are
        charged to no check (and, through the checker's memo, to no later arm)."""
        if self.proc is None or self.proc.poll() is not None:
            self._start()
            if self._exchange(warm_up, timeout_s) is None:
                return None
        return self._exchange(text, timeout_s)

    def _exchange(self, text: str, timeout_s: float) -> Answer | None:
        start, cpu = time.perf_counter(), tree_cpu_s(self.proc.pid)
        self.proc.stdin.write(text)
        self.proc.stdin.flush()
        out = []
        while True:
            left = timeout_s - (time.perf_counter() - start)
            try:
                line = self.lines.get(timeout=max(left, 0.0))
            except queue.Empty:
                line = None
            if line is None:  # timed out, or the process died: a new one serves the next request
                self.close()
                return None
            out.append(line)
            if self.end in line:
                return Answer("".join(out), time.perf_counter() - start, tree_cpu_s(self.proc.pid) - cpu)

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.proc = None


class DafnyServer(WarmProcess):
    """`DafnyServer.exe`: `verify` returns its `Answer`, or None on timeout."""

    end = SERVER_EOM

    def verify(self, source: str, args: list[str], timeout_s: float) -> Answer | None:
        return self.request(self._encode(source, args), self._encode(WARM_UP, args), timeout_s)

    @staticmethod
    def _encode(source: str, args: list[str]) -> str:
        request = {"args": args, "filename": "candidate.dfy", "source": source, "sourceIsFile": False}
        return f"verify\n{base64.b64encode(json.dumps(request).encode()).decode()}\n{CLIENT_EOM}\n"


class DafnyTestHost(WarmProcess):
    """The test host: `run` = `dafny ARGS PATH` in the warm process; its `Answer` carries Dafny's exit code."""

    end = "[[VCG-TEST-HOST: EOM "

    def __init__(self, command: list[str]):
        super().__init__(command)
        self.warm_up_dir = tempfile.TemporaryDirectory(prefix="vcg-host-warm-up-")
        self.warm_up_path = Path(self.warm_up_dir.name) / "warm_up.dfy"
        self.warm_up_path.write_text(WARM_UP_PROGRAM)

    def run(self, path: Path, args: list[str], timeout_s: float) -> Answer | None:
        answer = self.request(self._encode(path, args), self._encode(self.warm_up_path, args), timeout_s)
        if answer is None:
            return None
        found = HOST_EOM.search(answer.output)
        if found is None:
            return Answer(answer.output, answer.seconds, answer.cpu_s, returncode=99)
        printed = answer.output[:found.start()] + base64.b64decode(found.group(2)).decode("utf-8", "replace")
        return Answer(printed, answer.seconds, answer.cpu_s, returncode=int(found.group(1)))

    @staticmethod
    def _encode(path: Path, args: list[str]) -> str:
        if any("\t" in part or "\n" in part for part in [*args, str(path)]):
            raise ProceedingsError(f"a Dafny test-host argument holds a tab or a newline: {[*args, str(path)]}")
        return "\t".join([*args, str(path.resolve())]) + "\n"
