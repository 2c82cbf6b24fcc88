"""Real proof checkers behind one interface (spec §2.4): Coq 8.16, Dafny 2.3 on Z3 4.8.12, and Lean.

`Checker.verify(task, solution)` assembles the file from the task's protected text and the candidate's
regions, runs the cheat scan, then the checker in a fresh process with a wall limit, and reads its
verdict: "verified" needs exit status 0, the checker's own success line, and the axiom audit (Coq
`Print Assumptions` printing "Closed under the global context" as the file's last output, for the
task's statement restated before any candidate text; Dafny `/noCheating:1`; Lean no
`sorry` warning and no axiom outside Lean's three). `run_tests` compiles and runs the code, unverified, on
the task's tests (Coq `Eval vm_compute`, Dafny `/compile:4 /noVerify`). Nothing else ever says
"verified": not a model, not a workflow.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from proceedings.core.errors import ProceedingsError
from proceedings.verified_codegen.cheats import scan
from proceedings.verified_codegen.tasks import SUFFIX, Task

STATUSES = ("verified", "scaffold", "failed", "rejected", "timeout", "unavailable")


@dataclass
class Verdict:
    status: str  # one of STATUSES
    reason: str = ""
    messages: str = ""
    seconds: float = 0.0
    cached: bool = False
    cpu_s: float = 0.0  # CPU seconds of the checker process (or server) for this check

    @property
    def ok(self) -> bool:
        return self.status == "verified"


@dataclass
class TestOutcome:
    passed: bool
    failing: list[int] = field(default_factory=list)  # indices of failing tests
    reason: str = ""
    seconds: float = 0.0
    cached: bool = False
    cpu_s: float = 0.0


@dataclass
class Run:
    returncode: int | None  # None: killed at the wall limit
    output: str
    seconds: float
    via_server: bool = False  # answered by a long-lived checker server, not a fresh process
    cpu_s: float = 0.0  # user + system CPU of the process and its children (server: of its process tree)


def children_cpu_s() -> float:
    """User + system CPU of every child this process has reaped so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_process(argv: list[str], cwd: Path, timeout_s: float) -> Run:
    """Run a checker in its own process group; kill the whole group at the wall limit."""
    start, cpu = time.perf_counter(), children_cpu_s()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True, stdin=subprocess.DEVNULL)
    try:
        out, _ = proc.communicate(timeout=timeout_s)
        return Run(proc.returncode, out, time.perf_counter() - start, cpu_s=children_cpu_s() - cpu)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return Run(None, out, time.perf_counter() - start, cpu_s=children_cpu_s() - cpu)


class Checker:
    """One backend: `verify` (proof check with all gates) and `run_tests` (the code on the task's tests)."""

    backend = ""
    executable = ""
    apt_package = ""

    def __init__(self, timeout_s: float = 60.0, executable: str | None = None):
        self.timeout_s = timeout_s
        self.path = executable or shutil.which(self.executable)
        self.memo: dict[str, Verdict | TestOutcome] = {}  # file text -> its verdict, within one run
        self.processes = 0  # checker processes actually started
        self.server_requests = 0  # checks and test runs answered by a warm process (Dafny server, test host) instead
        self.rechecked: dict[str, Verdict] = {}  # final file -> its fresh re-check (workflows.judge)

    def _memoised(self, key: str, compute):
        """Identical files get identical verdicts: a repeat is answered from the memo, with the seconds
        the first run took (so a workflow is charged as if it ran), and flagged `cached`."""
        if key in self.memo:
            return replace(self.memo[key], cached=True)
        self.memo[key] = compute()
        return self.memo[key]

    @property
    def available(self) -> bool:
        return bool(self.path)

    def close(self) -> None:
        """Stop any warm process this checker keeps (a backend with none has nothing to stop)."""

    def missing(self) -> str:
        return f"{self.executable} not found: install it with `apt-get install -y --no-install-recommends {self.apt_package}`"

    def version(self) -> str:
        if not self.available:
            return "absent"
        run = run_process([self.path, *self.version_args()], Path.cwd(), 30)
        return self.parse_version(run.output)

    def verify(self, task: Task, solution: dict[str, str], scaffold: dict[str, str] | None = None,
               holes: tuple[str, ...] = (), fresh: bool = False) -> Verdict:
        """Cheat scan, then the checker on the assembled file in a fresh process and temp dir.

        PlanFirst's scaffold check passes `scaffold`: the same regions with the lemmas named in `holes`
        marked as assumptions by the workflow itself. `solution` (holes left empty) is what is scanned,
        `scaffold` what is checked, and a pass is status "scaffold", never "verified". `fresh` skips
        the memo: the final re-check always starts a new checker process.
        """
        if not self.available:
            return Verdict("unavailable", self.missing())
        cheat = scan(self.backend, solution)
        if cheat:
            return Verdict("rejected", cheat)
        text = self.audited(task, task.assemble(self.backend, scaffold or solution))
        if fresh:
            return self._verify_text(task, text, scaffold is not None, holes, fresh=True)
        return self._memoised(f"verify\0{holes}\0{text}", lambda: self._verify_text(task, text, scaffold is not None, holes))

    def _verify_text(self, task: Task, text: str, is_scaffold: bool, holes: tuple[str, ...],
                     fresh: bool = False) -> Verdict:
        run = self.run_verifier(task, text, fresh)
        if run.returncode is None:
            return Verdict("timeout", f"killed at the {self.timeout_s:.0f} s wall limit", run.output, run.seconds,
                           cpu_s=run.cpu_s)
        status, reason = self.judge(task, run, holes)
        if status == "verified" and is_scaffold:
            status, reason = "scaffold", f"checks modulo {len(holes)} lemma hole(s)"
        return Verdict(status, reason, run.output, run.seconds, cpu_s=run.cpu_s)

    def run_tests(self, task: Task, solution: dict[str, str]) -> TestOutcome:
        """Compile (no verification) and run the candidate on every test; only executable code matters."""
        if not self.available:
            return TestOutcome(False, reason=self.missing())
        cheat = scan(self.backend, solution)
        if cheat:
            return TestOutcome(False, reason=cheat)
        text = self.test_file(task, solution)
        return self._memoised(f"tests\0{text}", lambda: self._run_tests_text(task, text))

    def _run_tests_text(self, task: Task, text: str) -> TestOutcome:
        with tempfile.TemporaryDirectory(prefix=f"vcg-{self.backend}-test-") as tmp:
            path = Path(tmp) / f"{self.module_name(task)}_tests{SUFFIX[self.backend]}"
            path.write_text(text)
            run = self.run_test_program(path)
        if run.returncode is None:
            return TestOutcome(False, reason="tests killed at the wall limit", seconds=run.seconds, cpu_s=run.cpu_s)
        values = self.test_values(run.output)
        if run.returncode != 0 or len(values) != len(task.tests):
            return TestOutcome(False, list(range(len(task.tests))), f"code does not compile or run: {tail(run.output)}",
                               run.seconds, cpu_s=run.cpu_s)
        failing = [i for i, (got, want) in enumerate(values) if normalise(got) != normalise(want)]
        return TestOutcome(not failing, failing, f"{len(failing)} test(s) fail" if failing else "", run.seconds,
                           cpu_s=run.cpu_s)

    def run_test_program(self, path: Path) -> Run:
        """The test file compiled and run, in a fresh process in its temp dir (a backend may serve it otherwise)."""
        self.processes += 1
        return run_process(self.test_argv(path), path.parent, self.timeout_s)

    def run_verifier(self, task: Task, text: str, fresh: bool) -> Run:
        """The checker on `text`, in a fresh process and temp dir (a backend may serve non-fresh checks otherwise)."""
        with tempfile.TemporaryDirectory(prefix=f"vcg-{self.backend}-") as tmp:
            path = Path(tmp) / f"{self.module_name(task)}{SUFFIX[self.backend]}"
            path.write_text(text)
            self.processes += 1
            return run_process(self.verify_argv(path), Path(tmp), self.timeout_s)

    # Backend specifics --------------------------------------------------------------------------
    def module_name(self, task: Task) -> str:
        return re.sub(r"\W", "_", task.id)

    def version_args(self) -> list[str]:
        return ["--version"]

    def parse_version(self, output: str) -> str:
        found = re.search(r"\d+\.\d+(\.\d+)?", output)
        return found.group(0) if found else "unknown"

    def audited(self, task: Task, text: str) -> str:
        """The assembled file with the backend's axiom audit added (the checker's second gate)."""
        return text

    def verify_argv(self, path: Path) -> list[str]:
        raise NotImplementedError

    def judge(self, task: Task, run: Run, holes: tuple[str, ...] = ()) -> tuple[str, str]:
        raise NotImplementedError

    def test_file(self, task: Task, solution: dict[str, str]) -> str:
        raise NotImplementedError

    def test_argv(self, path: Path) -> list[str]:
        raise NotImplementedError

    def test_values(self, output: str) -> list[tuple[str, str]]:
        raise NotImplementedError


def tail(output: str, lines: int = 6) -> str:
    return " | ".join(line.strip() for line in output.strip().splitlines()[-lines:])


def normalise(value: str) -> str:
    return re.sub(r"\s+", "", value)


# ------------------------------------------------------------------------------------------- Coq
def coq_type(type_: str) -> str:
    """A signature type in Coq: Dafny's spelling mapped (seq<int> -> list Z, int -> Z; spec §2.7 step 3),
    so one task.json serves a task with a Dafny and a Coq spec (commit0-mini); Coq spellings unchanged."""
    type_ = type_.strip()
    if type_.startswith("seq<") and type_.endswith(">"):
        return f"list {coq_type(type_[4:-1])}"
    return {"int": "Z"}.get(type_, type_)


def coq_value(value, type_: str) -> str:
    """A JSON test value as a Coq term of `type_` (list Z, Z, nat, bool, list nat)."""
    type_ = coq_type(type_)
    if type_.startswith("list "):
        return "[" + "; ".join(coq_value(v, type_[5:]) for v in value) + "]"
    if type_ == "bool":
        return "true" if value else "false"
    if type_ == "nat":
        return f"{int(value)}%nat"
    if type_ == "Z":
        return f"({int(value)})"
    raise ProceedingsError(f"no Coq rendering for values of type '{type_}'")


class CoqChecker(Checker):
    backend, executable, apt_package = "coq", "coqc", "coq"

    def audited(self, task: Task, text: str) -> str:
        """The task's statement restated right after the preamble, over the implementation as a parameter
        (so no candidate notation, scope or shadowing can change what it says); at the end the theorem must
        prove that restatement, and `Print Assumptions` of it is the file's last output. A candidate that
        `Abort`s the theorem and proves a weaker one under its name, or redefines `=`, fails to type-check."""
        name, statement = theorem_statement(task)
        sig = task.signature
        impl_type = " -> ".join(f"({coq_type(t)})" for t in [p["param_type"] for p in sig["parameters"]]
                                + [sig["return_type"]])
        spec = f"Definition vcg_spec ({sig['name']} : {impl_type}) : Prop := {statement}.\n"
        end = "(* @end preamble *)"
        if end not in text:
            raise ProceedingsError(f"{task.spec('coq').path}: no '(* @end preamble *)' marker to restate the spec after")
        cut = text.index("\n", text.index(end)) + 1
        return (text[:cut] + spec + text[cut:]
                + f"\nDefinition vcg_proves_spec : vcg_spec {sig['name']} := {name}.\nPrint Assumptions vcg_proves_spec.\n")

    def verify_argv(self, path: Path) -> list[str]:
        return [self.path, "-q", path.name]

    def judge(self, task: Task, run: Run, holes: tuple[str, ...] = ()) -> tuple[str, str]:
        if run.returncode != 0:
            return "failed", f"coqc exit {run.returncode}: {tail(run.output)}"
        if run.output.rstrip().endswith("Closed under the global context"):
            return "verified", ""
        audit = run.output.split("Axioms:")[-1] if "Axioms:" in run.output else ""
        assumed = set(re.findall(r"^(\w+)\s*:", audit, re.M)) or {"?"}
        if holes and assumed <= set(holes):
            return "verified", ""
        return "rejected", f"Print Assumptions lists assumptions: {', '.join(sorted(assumed))}"

    def test_file(self, task: Task, solution: dict[str, str]) -> str:
        spec = task.spec("coq")
        preamble = next(p.text for p in spec.pieces if p.region == "preamble")
        sig = task.signature
        types = [p["param_type"] for p in sig["parameters"]]
        lines = [preamble, solution.get("code", ""), "\n"]
        for test in task.tests:
            args = " ".join(coq_value(v, t) for v, t in zip(test["input"], types))
            lines.append(f"Eval vm_compute in ({sig['name']} {args}).\n")
            lines.append(f"Eval vm_compute in ({coq_value(test['expected'], sig['return_type'])} : "
                         f"{coq_type(sig['return_type'])}).\n")
        return "".join(lines)

    def test_argv(self, path: Path) -> list[str]:
        return [self.path, "-q", path.name]

    def test_values(self, output: str) -> list[tuple[str, str]]:
        values = re.findall(r"^\s*=\s*(.*?)\n\s*:\s*", output, re.M | re.S)
        return list(zip(values[0::2], values[1::2]))


def theorem_statement(task: Task) -> tuple[str, str]:
    """(name, statement) of the protected `Theorem NAME : STATEMENT.` in a Coq task's spec region."""
    spec = task.spec("coq")
    text = next((p.text for p in spec.pieces if p.region == "spec"), "")
    found = re.search(r"\b(?:Theorem|Lemma)\s+(\w+)\s*:\s*(.+?)\.\s*$", re.sub(r"\(\*.*?\*\)", " ", text, flags=re.S), re.S)
    if not found:
        raise ProceedingsError(f"{spec.path}: the protected 'spec' region states no `Theorem NAME : STATEMENT.`")
    return found.group(1), found.group(2).strip()


# ----------------------------------------------------------------------------------------- Dafny
def dafny_value(value, type_: str) -> str:
    """A JSON test value as a Dafny expression of `type_` (seq<int>, int, nat, bool)."""
    type_ = type_.strip()
    if type_.startswith("seq<"):
        return "[" + ", ".join(dafny_value(v, type_[4:-1]) for v in value) + "]"
    if type_ == "bool":
        return "true" if value else "false"
    if type_ in ("int", "nat"):
        return str(int(value))
    raise ProceedingsError(f"no Dafny rendering for values of type '{type_}'")


class DafnyChecker(Checker):
    """`dafny /compile:0 /noCheating:1`; with `server=True` the verifications inside a workflow go to one
    long-lived DafnyServer.exe (dafny_server.py, ~8x less CPU a check), with `test_host=True` the test
    runs to one long-lived Dafny test host; the final re-check always starts a fresh process."""

    backend, executable, apt_package = "dafny", "dafny", "dafny"
    ARGS = ["/compile:0", "/noCheating:1", "/timeLimit:30"]

    def __init__(self, timeout_s: float = 60.0, executable: str | None = None, server: bool = False,
                 test_host: bool = False, host_verifies: bool = False):
        super().__init__(timeout_s, executable)
        self.server = self.test_host = None
        self.host_verifies = host_verifies  # non-fresh verifications through the test host: `dafny` itself, warm
        test_host = test_host or host_verifies
        if self.available and (server or test_host):
            from proceedings.verified_codegen.dafny_server import (DafnyServer, DafnyTestHost, server_command,
                                                                   test_host_command)

            self.server = DafnyServer(server_command(self.path)) if server else None
            self.test_host = DafnyTestHost(test_host_command(self.path)) if test_host else None

    def close(self) -> None:
        """Stop the warm processes (they also stop when this process exits)."""
        for warm in (self.server, self.test_host):
            if warm is not None:
                warm.close()

    def version_args(self) -> list[str]:
        return ["/version"]

    def verify_argv(self, path: Path) -> list[str]:
        return [self.path, *self.ARGS, path.name]

    def run_verifier(self, task: Task, text: str, fresh: bool) -> Run:
        if self.host_verifies and self.test_host is not None and not fresh:  # the CLI's output, judged as a fresh run's
            with tempfile.TemporaryDirectory(prefix="vcg-dafny-") as tmp:
                path = Path(tmp) / f"{self.module_name(task)}.dfy"
                path.write_text(text)
                run = self.run_test_program(path, self.ARGS)
            return replace(run, via_server=False)
        if self.server is None or fresh:
            return super().run_verifier(task, text, fresh)
        self.server_requests += 1
        answer = self.server.verify(text, self.ARGS, self.timeout_s)
        if answer is None:
            return Run(None, "", self.timeout_s, via_server=True)
        return Run(0, answer.output, answer.seconds, via_server=True, cpu_s=answer.cpu_s)

    def judge(self, task: Task, run: Run, holes: tuple[str, ...] = ()) -> tuple[str, str]:
        errors = [line.strip() for line in run.output.splitlines()
                  if re.search(r"\bError\b|timed out|out of resource", line)]
        cheat = re.search(r"Error: (.*(must have a body|assume statement).*)", run.output)
        if cheat:
            return "rejected", f"/noCheating:1 refuses it: {cheat.group(1).strip()}"
        if run.via_server:  # the server ends every reply with this line, errors or not: the error lines decide
            done = "Verification completed successfully!" in run.output
        else:
            summary = re.search(r"Dafny program verifier finished with (\d+) verified, (\d+) errors?", run.output)
            done = run.returncode == 0 and summary is not None and summary.group(2) == "0"
        if done and not errors:
            return "verified", ""
        return "failed", f"dafny exit {run.returncode}: {' | '.join(errors[:4]) or tail(run.output)}"

    def test_file(self, task: Task, solution: dict[str, str]) -> str:
        sig = task.signature
        types = [p["param_type"] for p in sig["parameters"]]
        calls = []
        for number, test in enumerate(task.tests):
            args = ", ".join(dafny_value(v, t) for v, t in zip(test["input"], types))
            # a test without "expected" (the differential check's hidden tests) prints the result alone; the
            # expected value is typed by a declaration (an empty `[]` alone is underspecified to Dafny)
            want = (f"var want{number}: {sig['return_type']} := {dafny_value(test['expected'], sig['return_type'])}; "
                    if "expected" in test else f'var want{number} := ""; ')
            calls.append(f"  var got{number} := {sig['name']}({args});\n  {want}\n"
                         f"  print \"@@ \", got{number}, \" @@ \", want{number}, \"\\n\";\n")
        # the whole candidate: code may call its lemmas, which are ghost and not compiled
        return task.assemble("dafny", solution) + "\nmethod Main() {\n" + "".join(calls) + "}\n"

    TEST_ARGS = ["/compile:4", "/noVerify"]  # 2.3 skips compiling under /compile:3 /noVerify

    def test_argv(self, path: Path) -> list[str]:
        return [self.path, *self.TEST_ARGS, path.name]

    def run_test_program(self, path: Path, args: list[str] | None = None) -> Run:
        if self.test_host is None:
            return super().run_test_program(path)
        self.server_requests += 1
        answer = self.test_host.run(path, args or self.TEST_ARGS, self.timeout_s)
        if answer is None:
            return Run(None, "", self.timeout_s, via_server=True)
        return Run(answer.returncode, answer.output, answer.seconds, via_server=True, cpu_s=answer.cpu_s)

    def test_values(self, output: str) -> list[tuple[str, str]]:
        return re.findall(r"^@@ (.*?) @@ (.*)$", output, re.M)


# ------------------------------------------------------------------------------------------ Lean
LEAN_AXIOMS = {"propext", "Classical.choice", "Quot.sound"}


class LeanChecker(Checker):
    """Lean 4 behind the same interface: `lean FILE` (or $VCG_LEAN); no toolchain exists offline here."""

    backend, executable, apt_package = "lean", "lean", ""

    def __init__(self, timeout_s: float = 300.0, executable: str | None = None):
        super().__init__(timeout_s, executable or os.environ.get("VCG_LEAN"))

    def missing(self) -> str:
        return "Lean toolchain not found: set VCG_LEAN=/path/to/lean or run in a Lake project"

    def audited(self, task: Task, text: str) -> str:
        found = re.search(r"\btheorem\s+(\S+)", "".join(p.text for p in task.spec("lean").pieces))
        return text + (f"\n#print axioms {found.group(1)}\n" if found else "")

    def verify_argv(self, path: Path) -> list[str]:
        return [self.path, path.name]

    def judge(self, task: Task, run: Run, holes: tuple[str, ...] = ()) -> tuple[str, str]:
        if run.returncode != 0 or re.search(r"^\S*:\d+:\d+: error", run.output, re.M):
            return "failed", f"lean exit {run.returncode}: {tail(run.output)}"
        if "declaration uses 'sorry'" in run.output:
            return "rejected", "a declaration uses 'sorry'"
        audits = re.findall(r"depends on axioms: \[(.*?)\]", run.output, re.S)  # the last is `#print axioms`
        extra = sorted({a.strip() for a in audits[-1].split(",")} - LEAN_AXIOMS) if audits else []
        if extra:
            return "rejected", f"depends on axioms outside Lean's own: {', '.join(extra)}"
        return "verified", ""


CHECKERS = {"coq": CoqChecker, "dafny": DafnyChecker, "lean": LeanChecker}


def get_checker(backend: str, **options) -> Checker:
    if backend not in CHECKERS:
        raise ProceedingsError(f"unknown backend '{backend}'; choose one of: {', '.join(CHECKERS)}")
    return CHECKERS[backend](**options)
