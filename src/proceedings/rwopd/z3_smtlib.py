"""A `z3 -smt2 -in` stand-in over the z3-solver wheel's library, for SymbiYosys' smtbmc.

The z3-solver wheel ships libz3 but no `z3` executable, and yosys-smtbmc talks to a solver process
in interactive SMT-LIB 2. This module reads commands from stdin one s-expression at a time, hands
each to the same libz3 (`Z3_eval_smtlib2_string` on one persistent context) and prints the answer.
Run as `python -m proceedings.rwopd.z3_smtlib [ignored z3 flags]`.
"""

from __future__ import annotations

import sys


def _commands(stream):
    """Yield complete top-level s-expressions from a character stream (strings/comments aware)."""
    buffer, depth, in_string, in_quote, in_comment = [], 0, False, False, False
    while True:
        char = stream.read(1)
        if not char:
            return
        if in_comment:
            in_comment = char != "\n"
            continue
        buffer.append(char)
        if in_string:
            in_string = char != '"'
        elif in_quote:
            in_quote = char != "|"
        elif char == '"':
            in_string = True
        elif char == "|":
            in_quote = True
        elif char == ";":
            buffer.pop()
            in_comment = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                yield "".join(buffer).strip()
                buffer = []


def main() -> None:
    import z3

    context = z3.main_ctx()
    for command in _commands(sys.stdin):
        if command.startswith("(exit"):
            break
        answer = z3.Z3_eval_smtlib2_string(context.ref(), command)
        if answer:
            sys.stdout.write(answer if answer.endswith("\n") else answer + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
