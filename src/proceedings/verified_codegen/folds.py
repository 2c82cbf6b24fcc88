"""Reading a fold specification from a task's protected text (what the sketch proposer may see).

The shipped sequence tasks specify their result by a recursive function over the input, peeling one
element per step: Dafny `function F(s: seq<int>): T { if |s| == 0 then BASE else REC }`, Coq
`Fixpoint f (l : list Z) : T := match l with [] => BASE | x :: t => REC end`. `Fold` records the
base case, which end the recursion peels ("front": s[0] and s[1..]; "back": s[|s|-1] and s[..|s|-1])
and the combination REC as a template in the peeled element `{x}` and the recursive result `{rest}`.
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

    def apply(self, x: str, rest: str) -> str:
        return self.combine.replace("{x}", x).replace("{rest}", rest)


def protected_text(task: Task, backend: str) -> str:
    return "".join(p.text for p in task.spec(backend).pieces if p.region not in EDITABLE[backend])


def dafny_fold(task: Task) -> Fold | None:
    """The fold a Dafny task's `ensures r == F(a)` names, or None when the spec is not of that shape."""
    text = protected_text(task, "dafny")
    method = re.search(r"method\s+(\w+)\s*\(\s*(\w+)\s*:\s*seq<int>\s*\)\s*returns\s*\(\s*(\w+)\s*:\s*(\w+)\s*\)", text)
    if not method:
        return None
    name, param, result, _ = method.groups()
    ensures = re.search(rf"ensures\s+{result}\s*==\s*(\w+)\(\s*{param}\s*\)", text)
    if not ensures:
        return None
    function = ensures.group(1)
    body = re.search(rf"function\s+{function}\s*\(\s*(\w+)\s*:\s*seq<int>\s*\)\s*:\s*(\w+)\s*\{{\s*"
                     rf"if\s*\|\1\|\s*==\s*0\s*then\s*(.+?)\s*else\s*(.+?)\s*\}}", text, re.S)
    if not body:
        return None
    s, result_type, base, rec = body.groups()
    s_ = re.escape(s)
    front = (rf"{function}\({s_}\[1\.\.\]\)", rf"{s_}\[0\]")
    back = (rf"{function}\({s_}\[\.\.\|{s_}\|\s*-\s*1\]\)", rf"{s_}\[\|{s_}\|\s*-\s*1\]")
    for direction, (call, element) in (("front", front), ("back", back)):
        if re.search(call, rec):
            combine = re.sub(element, "{x}", re.sub(call, "{rest}", rec))
            if s in re.sub(r"\{\w+\}", "", combine).split():
                return None
            return Fold(function, result_type, base.strip(), direction, combine.strip(), name, param, result)
    return None
