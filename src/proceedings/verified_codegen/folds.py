"""Reading a fold specification from a task's protected text (what the sketch proposer may see).

The shipped sequence tasks specify their result by a recursive function over the input, peeling one
element per step: Dafny `function F(s: seq<int>): T { if |s| == 0 then BASE else REC }`, Coq
`Fixpoint f (l : list Z) : T := match l with [] => BASE | x :: t => REC end`. `Fold` records the
base case, which end the recursion peels ("front": s[0] and s[1..]; "back": s[|s|-1] and s[..|s|-1])
and the combination REC as a template in the peeled element `{x}` and the recursive result `{rest}`.
Extra scalar parameters (`method M(a: seq<int>, k: int)`, `function F(s: seq<int>, k: int)`, the
recursion `F(s[1..], k)`: commit0-mini's `bisect_left(s, k)`) are passed through unchanged; they must
carry the same names in the method and the function, and not the names the sketches use (s, x, i).
A Coq task's fold is the `Fixpoint` its theorem `forall l ks, IMPL l ks = F l ks` names; a Coq list
recursion always peels the front, and its extra parameters must be `Z`.
Only the protected regions (preamble, spec) are read: never a reference solution.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from proceedings.core.errors import ProceedingsError
from proceedings.verified_codegen.tasks import EDITABLE, Task


@dataclass(frozen=True)
class Fold:
    function: str  # the spec function
    result_type: str
    base: str
    direction: str  # "front" | "back"
    combine: str  # template over {x} and {rest}
    method: str  # the implementation's name
    param: str  # its sequence parameter
    result: str  # its result variable (Dafny) / "" (Coq)
    extra: tuple[str, ...] = ()  # scalar parameters passed through unchanged (same names in method and function)

    def apply(self, x: str, rest: str) -> str:
        return self.combine.replace("{x}", x).replace("{rest}", rest)

    def call(self, seq: str) -> str:
        """The spec function applied to `seq` and the extra parameters: `F(seq, k)`."""
        return f"{self.function}({seq}{self.extra_args()})"

    def extra_args(self) -> str:
        return "".join(f", {name}" for name in self.extra)

    def extra_params(self) -> str:
        return "".join(f", {name}: int" for name in self.extra)


def protected_text(task: Task, backend: str) -> str:
    return "".join(p.text for p in task.spec(backend).pieces if p.region not in EDITABLE[backend])


def dafny_fold(task: Task) -> Fold | None:
    """The fold a Dafny task's `ensures r == F(a)` names, or None when the spec is not of that shape."""
    text = protected_text(task, "dafny")
    method = re.search(r"method\s+(\w+)\s*\(\s*(\w+)\s*:\s*seq<int>\s*((?:,\s*\w+\s*:\s*int\s*)*)\)\s*"
                       r"returns\s*\(\s*(\w+)\s*:\s*(\w+)\s*\)", text)
    if not method:
        return None
    name, param, extras, result, _ = method.groups()
    extra = tuple(re.findall(r"(\w+)\s*:\s*int", extras))
    if {"s", "x", "i"} & set(extra):
        return None
    args = "".join(rf"\s*,\s*{e}" for e in extra)
    ensures = re.search(rf"ensures\s+{result}\s*==\s*(\w+)\(\s*{param}{args}\s*\)", text)
    if not ensures:
        return None
    function = ensures.group(1)
    params = "".join(rf"\s*,\s*{e}\s*:\s*int" for e in extra)
    body = re.search(rf"function\s+{function}\s*\(\s*(\w+)\s*:\s*seq<int>{params}\s*\)\s*:\s*(\w+)\s*\{{\s*"
                     rf"if\s*\|\1\|\s*==\s*0\s*then\s*(.+?)\s*else\s*(.+?)\s*\}}", text, re.S)
    if not body:
        return None
    s, result_type, base, rec = body.groups()
    s_ = re.escape(s)
    front = (rf"{function}\({s_}\[1\.\.\]{args}\)", rf"{s_}\[0\]")
    back = (rf"{function}\({s_}\[\.\.\|{s_}\|\s*-\s*1\]{args}\)", rf"{s_}\[\|{s_}\|\s*-\s*1\]")
    for direction, (call, element) in (("front", front), ("back", back)):
        if re.search(call, rec):
            combine = re.sub(element, "{x}", re.sub(call, "{rest}", rec))
            if s in re.sub(r"\{\w+\}", "", combine).split():
                return None
            return Fold(function, result_type, base.strip(), direction, combine.strip(), name, param, result, extra)
    return None


def coq_fold(task: Task) -> Fold | None:
    """The fold a Coq task's `Theorem T : forall l ks, IMPL l ks = F l ks.` names, or None when not of that shape."""
    from proceedings.verified_codegen.checkers import theorem_statement

    try:
        _, statement = theorem_statement(task)
    except ProceedingsError:
        return None
    method = task.signature["name"]
    found = re.fullmatch(rf"forall\s+([\w\s]+?)\s*,\s*{method}\s+([\w\s]+?)\s*=\s*(\w+)\s+([\w\s]+?)", statement)
    if not found or found.group(2).split() != found.group(4).split() or not found.group(2).split():
        return None
    function, (param, *extra) = found.group(3), found.group(2).split()
    text = protected_text(task, "coq")
    body = re.search(rf"Fixpoint\s+{function}\s*\(\s*(\w+)\s*:\s*list\s+Z\s*\)((?:\s*\([\w\s]+:\s*Z\s*\))*)\s*:\s*"
                     rf"(\w+)\s*:=\s*match\s+\1\s+with\s*\|?\s*\[\s*\]\s*=>\s*(.+?)\s*\|\s*(\w+)\s*::\s*(\w+)\s*=>"
                     rf"\s*(.+?)\s*end\s*\.", text, re.S)
    if not body:
        return None
    _, extras, result_type, base, x, t, rec = body.groups()
    names = tuple(n for group in re.findall(r"\(([\w\s]+):", extras) for n in group.split())
    if len(names) != len(extra) or {"l", "x", "t", "acc", "IH"} & set(extra):
        return None
    args = "".join(rf"\s+{n}" for n in names)
    call = rf"\(\s*{function}\s+{t}{args}\s*\)|\b{function}\s+{t}{args}\b"
    if not re.search(call, rec):
        return None
    combine = re.sub(call, "{rest}", rec)
    if x != "_":
        combine = re.sub(rf"\b{x}\b", "{x}", combine)
    if re.search(rf"\b{t}\b", combine) or re.search(rf"\b{function}\b", combine):
        return None
    for old, new in zip(names, extra):  # the theorem's names for the extra parameters
        combine = re.sub(rf"\b{old}\b", new, combine)
    return Fold(function, result_type, " ".join(base.split()), "front", " ".join(combine.split()), method, param, "",
                tuple(extra))
