"""Dafny verification through one long-lived `DafnyServer.exe` (FACTS.md "Proof checkers").

Each `dafny` process pays Mono's start-up and JIT: ~2.4 s CPU for a small file, most of a run's cost.
The server, started once, verifies a file in ~0.3 s CPU. Protocol: the line `verify`, the base64 of
`{"args": [...], "filename": ..., "source": ..., "sourceIsFile": false}`, the line
`[[DAFNY-CLIENT: EOM]]`; the reply ends with `[[DAFNY-SERVER: EOM]]` and says "Verification completed
successfully!" even when a resolution error was printed, so the verdict is read from the error lines
(`DafnyChecker.judge_server`). A reply that does not come within the wall limit kills the server's
process group (the next request starts a new one). The final re-check never uses the server: it is a
fresh `dafny` process (workflows.judge).
"""

from __future__ import annotations

import atexit
import base64
import json
import os
import queue
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass

from proceedings.core.errors import ProceedingsError

CLIENT_EOM, SERVER_EOM = "[[DAFNY-CLIENT: EOM]]", "[[DAFNY-SERVER: EOM]]"
WARM_UP = "lemma WarmUp(x: int)\n    ensures x + 0 == x\n{\n}\n"  # verified once per server start, charged to nothing


def server_command(dafny: str) -> list[str]:
    """`cli DafnyServer.exe`, found beside the `Dafny.exe` that the `dafny` launcher runs."""
    exe = os.path.join(os.path.dirname(os.path.realpath(dafny)), "..", "lib", "dafny", "DafnyServer.exe")
    exe = exe if os.path.isfile(exe) else "/usr/lib/dafny/DafnyServer.exe"
    mono = shutil.which("cli") or shutil.which("mono")
    if not (os.path.isfile(exe) and mono):
        raise ProceedingsError(f"DafnyServer.exe not found beside {dafny} (the Debian `dafny` package ships it); "
                               f"run without the server")
    return [mono, exe]


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
    cpu_s: float  # CPU of the server's process tree over the same span


class DafnyServer:
    """One server process, started on the first request; `verify` returns its `Answer`, or None on timeout."""

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

    def verify(self, source: str, args: list[str], timeout_s: float) -> Answer | None:
        """One request's answer; a (re)started server first answers a warm-up request, so that its start-up
        and JIT are charged to no check (and, through the checker's memo, to no later arm)."""
        if self.proc is None or self.proc.poll() is not None:
            self._start()
            if self._exchange(WARM_UP, args, timeout_s) is None:
                return None
        return self._exchange(source, args, timeout_s)

    def _exchange(self, source: str, args: list[str], timeout_s: float) -> Answer | None:
        request = {"args": args, "filename": "candidate.dfy", "source": source, "sourceIsFile": False}
        start, cpu = time.perf_counter(), tree_cpu_s(self.proc.pid)
        self.proc.stdin.write(f"verify\n{base64.b64encode(json.dumps(request).encode()).decode()}\n{CLIENT_EOM}\n")
        self.proc.stdin.flush()
        out = []
        while True:
            left = timeout_s - (time.perf_counter() - start)
            try:
                line = self.lines.get(timeout=max(left, 0.0))
            except queue.Empty:
                line = None
            if line is None:  # timed out, or the server died: a new one serves the next request
                self.close()
                return None
            out.append(line)
            if SERVER_EOM in line:
                return Answer("".join(out), time.perf_counter() - start, tree_cpu_s(self.proc.pid) - cpu)

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.proc = None
