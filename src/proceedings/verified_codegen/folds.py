"""Reading a fold specification from a task's protected text (what the sketch proposer may see).

The shipped sequence tasks specify their result by a recursive function over the input, peeling one
element per step: Dafny `function F(s: seq<int>): T { if |s| == 0 then BASE else REC }`, Coq
`Fixpoint f (l : list Z) : T := match l with [] => BASE | x :: t => REC end`. `Fold` records the
base case, which end the recursion peels ("front": s[0] and s[1..]; "back": s[|s|-1] and s[..|s|-1])
and the combination REC as a template in the peeled element `{x}` and the recursive result `{rest}`.
Extra scalar parameters (`method M(a: seq<int>, k: int)`, `function F(s: seq<int>, k: int)`, the
recursion `F(s[1..], k)`: commit0-mini's `bisect_left(s, k)`) are passed through unchanged; they must
carry the same names in the method and the function, and not the names the sketches use (s, x, i).
Only the protected regions (preamble, spec) are read: never a reference solution.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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
